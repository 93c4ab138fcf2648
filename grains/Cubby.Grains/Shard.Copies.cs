using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    /// <summary>A copy of a live entry whole, value, type, flags and expiry (RENAME, COPY); null when it is absent.</summary>
    public ShardEntryCopy? Export(ReadOnlySpan<byte> key)
    {
        RequireTurn();
        var index = FindLive(key, Now());
        if (index < 0)
        {
            return null;
        }

        ref readonly var metadata = ref _store.MetadataAt(index);
        return new ShardEntryCopy(
            _store.ValueAt(index).ToArray(),
            metadata.Kind,
            (CacheEntryFlags)metadata.Flags,
            metadata.ExpiresAt,
            metadata.SlidingWindow,
            metadata.AbsoluteDeadline);
    }

    /// <summary>
    /// Writes <paramref name="entry"/> under <paramref name="key"/> as it was, type and expiry included, replacing any
    /// entry of any type there only when <paramref name="replace"/> is set. An entry whose expiry has passed is not
    /// written, but still replaces (removes) the one there, as if written and expired at once.
    /// </summary>
    /// <returns><see cref="SetStatus.NotStored"/> when the key exists and may not be replaced.</returns>
    public SetStatus Import(ReadOnlySpan<byte> key, ShardEntryCopy entry, bool replace)
    {
        ArgumentNullException.ThrowIfNull(entry);
        RequireTurn();
        var now = Now();
        var metadata = new EntryMetadata
        {
            ExpiresAt = entry.ExpiresAt,
            SlidingWindow = entry.SlidingWindow,
            AbsoluteDeadline = entry.AbsoluteDeadline,
            Flags = (uint)entry.Flags,
            LastAccess = EntryMetadata.Clock(now),
            Kind = entry.Kind,
        };

        if (!metadata.IsExpiredAt(now))
        {
            return Put(key, entry.Value, metadata, replace, now);
        }

        var index = FindLive(key, now);
        if (index >= 0 && !replace)
        {
            return SetStatus.NotStored;
        }

        if (index >= 0)
        {
            RemoveEntry(index);
        }

        return SetStatus.Created;
    }

    /// <summary>
    /// Stores a value with its metadata as given, inserting or (when <paramref name="replace"/>) overwriting, evicting
    /// to make room when the budget is full. The caller holds the turn.
    /// </summary>
    private SetStatus Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, in EntryMetadata metadata, bool replace, long now)
    {
        while (true)
        {
            var index = FindLive(key, now);
            if (index >= 0 && !replace)
            {
                return SetStatus.NotStored;
            }

            switch (Write(key, index, value, metadata, now))
            {
                case ChargeOutcome.Reclaimed:
                    continue;
                case ChargeOutcome.OutOfMemory:
                    return SetStatus.OutOfMemory;
            }

            return index >= 0 ? SetStatus.Updated : SetStatus.Created;
        }
    }
}
