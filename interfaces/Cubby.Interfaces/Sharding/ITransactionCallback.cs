using Orleans;

namespace Cubby.Sharding;

/// <summary>
/// The silo running a transaction (MULTI ... EXEC), told by the last shard of a <see cref="IShardGrain.Hold"/> chain
/// that every shard of the transaction is held.
/// </summary>
public interface ITransactionCallback : IGrainObserver
{
    /// <summary>
    /// Every shard is held. The returned task completes once the transaction's commands have run; until then the
    /// chain, and with it every hold, stays in place.
    /// </summary>
    Task Held();
}
