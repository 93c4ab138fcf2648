using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Benchmarks;

/// <summary>Reads an entry as cheaply as a dictionary hands out its value: it only takes the length.</summary>
internal struct LengthReader : IEntryReader
{
    public int Length;

    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now) => Length = value.Length;
}
