using Cubby.Grains;
using Cubby.Sharding;

namespace Cubby.Grains.Commands.TwoKeys;

/// <summary>
/// How RENAME, COPY and LCS reach the entries of their two keys: the shards themselves when this silo holds their turns, or their
/// grains while a hold keeps every other caller out. Either way the whole command is one atomic step.
/// </summary>
internal interface IEntryShards
{
    ValueTask<ShardEntryCopy?> ExportAsync(byte[] key);

    /// <summary>False when the key exists and may not be replaced.</summary>
    /// <exception cref="CubbyOutOfMemoryException">The entry does not fit in the budget.</exception>
    ValueTask<bool> ImportAsync(byte[] key, ShardEntryCopy entry, bool replace);

    ValueTask RemoveAsync(byte[] key);
}

/// <summary>The two entered shards of a command's keys: every call completes at once.</summary>
internal sealed class LocalShards(byte[] firstKey, Shard first, Shard second) : IEntryShards
{
    public ValueTask<ShardEntryCopy?> ExportAsync(byte[] key) => ValueTask.FromResult(ShardOf(key).Export(key));

    public ValueTask<bool> ImportAsync(byte[] key, ShardEntryCopy entry, bool replace) => ShardOf(key).Import(key, entry, replace) switch
    {
        SetStatus.NotStored => ValueTask.FromResult(false),
        SetStatus.OutOfMemory => throw new CubbyOutOfMemoryException(),
        _ => ValueTask.FromResult(true),
    };

    public ValueTask RemoveAsync(byte[] key)
    {
        ShardOf(key).Remove(key);
        return ValueTask.CompletedTask;
    }

    // The work only ever names its own two keys; comparing bytes is cheaper than hashing the key again.
    private Shard ShardOf(byte[] key) => key.AsSpan().SequenceEqual(firstKey) ? first : second;
}
