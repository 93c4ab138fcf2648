using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

/// <summary>A reader that allocates nothing: it only adds up the bytes it is shown.</summary>
internal struct ByteSumReader : IEntryReader
{
    public long Sum;

    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        foreach (var b in value)
        {
            Sum += b;
        }
    }
}
