using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

/// <summary>Counts values that are not one byte repeated, as a write interleaved with a read would leave them.</summary>
internal struct UniformValueReader : IEntryReader
{
    public int Torn;

    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        if (value.IsEmpty || value.ContainsAnyExcept(value[0]) || (value.Length != 100 && value.Length != 256))
        {
            Torn++;
        }
    }
}
