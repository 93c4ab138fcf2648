using Cubby.Grains.Storage;

namespace Cubby.Grains;

/// <summary>
/// Receives an entry inside the grain's turn. The value span is valid only during the call, so a reader copies what
/// it needs (a RESP reply writer copies it straight into the output buffer).
/// </summary>
internal interface IEntryReader
{
    void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now);
}

/// <summary>A reader for callers that only need to know whether the entry exists.</summary>
internal struct NoReader : IEntryReader
{
    public readonly void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
    }
}
