using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    /// <summary>
    /// Reads a live string, renewing its sliding expiry first when <paramref name="slide"/> is set. Another kind of
    /// value is a <see cref="WrongTypeException"/>, or counts as absent when <paramref name="otherKindsAreAbsent"/> (MGET).
    /// </summary>
    public bool Read<TReader>(ReadOnlySpan<byte> key, bool slide, ref TReader reader, bool otherKindsAreAbsent = false)
        where TReader : IEntryReader, allows ref struct
    {
        RequireTurn();
        var now = Now();
        var index = FindLive(key, now);
        if (index < 0)
        {
            return false;
        }

        if (_store.MetadataAt(index).Kind != EntryKind.String)
        {
            return otherKindsAreAbsent ? false : throw new WrongTypeException();
        }

        ref var metadata = ref Touch(index, now, slide);
        reader.Read(_store.ValueAt(index), metadata, now);
        return true;
    }

    /// <summary>Renews a sliding expiry without reading the value; false when the entry is absent.</summary>
    public bool Refresh(ReadOnlySpan<byte> key)
    {
        RequireTurn();
        var now = Now();
        var index = FindLive(key, now);
        if (index < 0)
        {
            return false;
        }

        Touch(index, now, slide: true);
        return true;
    }

    public bool Exists(ReadOnlySpan<byte> key)
    {
        RequireTurn();
        return FindLive(key, Now()) >= 0;
    }

    /// <summary>Reads a live entry of any kind without touching it: no sliding renewal, no access time (OBJECT).</summary>
    public bool Peek<TReader>(ReadOnlySpan<byte> key, ref TReader reader)
        where TReader : IEntryReader, allows ref struct
    {
        RequireTurn();
        var now = Now();
        var index = FindLive(key, now);
        if (index >= 0)
        {
            reader.Read(_store.ValueAt(index), _store.MetadataAt(index), now);
        }

        return index >= 0;
    }

    /// <summary>The entry's metadata without touching it (TTL, EXPIRETIME).</summary>
    public bool TryGetMetadata(ReadOnlySpan<byte> key, out EntryMetadata metadata, out long now)
    {
        RequireTurn();
        now = Now();
        var index = FindLive(key, now);
        metadata = index >= 0 ? _store.MetadataAt(index) : default;
        return index >= 0;
    }

    private ref EntryMetadata Touch(int index, long now, bool slide)
    {
        ref var metadata = ref _store.MetadataAt(index);
        metadata.LastAccess = EntryMetadata.Clock(now);
        if (slide && metadata.SlidingWindow != 0)
        {
            var before = metadata.ExpiresAt;
            metadata.Slide(now);
            if (metadata.CrossedHalfWindow(before))
            {
                Renewed(_store.KeyAt(index));
            }
        }

        return ref metadata;
    }
}
