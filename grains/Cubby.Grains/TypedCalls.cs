using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Grains;

/// <summary>
/// The typed calls of clients on a shard, in its turn: the checks of their arguments and the reads and writes, shared by
/// the shard grain (<see cref="IShardGrain"/>) and the silo's batch entry point (<see cref="IShardBatchService"/>).
/// </summary>
internal static class TypedCalls
{
    public static ShardEntry? Get(Shard shard, byte[] key, bool slide)
    {
        var capture = default(EntryCapture);
        shard.Read(key, slide, ref capture);
        return capture.Entry;
    }

    public static WriteOutcome Set(Shard shard, byte[] key, byte[] value, ShardExpiry expiry, CacheEntryFlags flags, ShardWriteCondition condition)
    {
        var none = default(NoReader);
        var request = new SetRequest((WriteCondition)condition, new ExpirySpec(expiry.ExpiresAt, expiry.SlidingWindow), (uint)flags);
        return shard.Set(key, value, request, ref none) switch
        {
            SetStatus.Created => WriteOutcome.Created,
            SetStatus.Updated => WriteOutcome.Updated,
            SetStatus.NotStored => WriteOutcome.NotStored,
            _ => throw new CubbyOutOfMemoryException(),
        };
    }

    /// <summary>Milliseconds the entry has left to live: -1 without expiry, -2 when there is no entry.</summary>
    public static long TimeToLive(Shard shard, byte[] key) =>
        shard.TryGetMetadata(key, out var metadata, out var now) ? metadata.TimeToLive(now) : -2;

    // Clients compute the shard of a key themselves; a key that reached the wrong shard would be stored where no other
    // client and no RESP command looks for it.
    public static void CheckKey(ShardCatalog catalog, int shard, byte[] key)
    {
        ArgumentNullException.ThrowIfNull(key);
        var options = catalog.Options;
        if (key.Length == 0)
        {
            throw new ArgumentException("The key must not be empty.", nameof(key));
        }

        if (key.Length > options.MaxKeyBytes)
        {
            throw new ArgumentException($"The key is {key.Length} bytes, over the silo's limit of {options.MaxKeyBytes} (Cubby:MaxKeyBytes).", nameof(key));
        }

        if (catalog.ShardMap.SlotOf(key) is var slot && slot != shard)
        {
            throw new ArgumentException(
                $"The key belongs to slot {slot}, not to shard {shard}: the caller's slot count differs from the silo's Cubby:SlotCount ({catalog.SlotCount}).", nameof(key));
        }
    }

    public static void CheckValue(ShardCatalog catalog, byte[] value)
    {
        ArgumentNullException.ThrowIfNull(value);
        if (value.Length > catalog.Options.MaxValueBytes)
        {
            throw new ArgumentException($"The value is {value.Length} bytes, over the silo's limit of {catalog.Options.MaxValueBytes} (Cubby:MaxValueBytes).", nameof(value));
        }
    }
}
