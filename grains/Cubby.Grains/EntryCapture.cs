using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Grains;

/// <summary>Copies an entry out of the shard's turn as a <see cref="ShardEntry"/>.</summary>
internal struct EntryCapture : IEntryReader
{
    public ShardEntry? Entry { get; private set; }

    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now) =>
        Entry = new ShardEntry(value.ToArray(), (CacheEntryFlags)metadata.Flags, metadata.TimeToLive(now), metadata.SlidingWindow);
}
