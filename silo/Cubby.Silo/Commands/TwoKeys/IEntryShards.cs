using Cubby.Grains;
using Cubby.Sharding;

namespace Cubby.Silo.Commands.TwoKeys;

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

/// <summary>Shards active on this silo, whose turns the caller holds: every call completes at once.</summary>
internal sealed class LocalShards(ShardCatalog catalog) : IEntryShards
{
    public ValueTask<ShardEntryCopy?> ExportAsync(byte[] key) => ValueTask.FromResult(catalog.GrainFor(key).Export(key));

    public ValueTask<bool> ImportAsync(byte[] key, ShardEntryCopy entry, bool replace) => catalog.GrainFor(key).Import(key, entry, replace) switch
    {
        SetStatus.NotStored => ValueTask.FromResult(false),
        SetStatus.OutOfMemory => throw new CubbyOutOfMemoryException(),
        _ => ValueTask.FromResult(true),
    };

    public ValueTask RemoveAsync(byte[] key)
    {
        catalog.GrainFor(key).Remove(key);
        return ValueTask.CompletedTask;
    }
}

/// <summary>Shard grains wherever they are, called in the caller's call chain (which holds them).</summary>
internal sealed class HeldShardGrains(IGrainFactory grains, ShardMap shardMap) : IEntryShards
{
    public ValueTask<ShardEntryCopy?> ExportAsync(byte[] key) => GrainOf(key).Export(key);

    public ValueTask<bool> ImportAsync(byte[] key, ShardEntryCopy entry, bool replace) => GrainOf(key).Import(key, entry, replace);

    public async ValueTask RemoveAsync(byte[] key) => await GrainOf(key).Remove([key]).ConfigureAwait(false);

    private IShardGrain GrainOf(byte[] key) => grains.GetGrain<IShardGrain>(shardMap.SlotOf(key));
}
