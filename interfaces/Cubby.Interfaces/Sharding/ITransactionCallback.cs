using Orleans;

namespace Cubby.Sharding;

/// <summary>
/// The silo running a transaction (MULTI ... EXEC), told by the last shard of a <see cref="IShardGrain.Hold"/> chain
/// that every shard of the transaction is held; it runs the commands and answers whether it wants them kept. The last
/// shard decides: what it received, or a rollback when the answer did not arrive (docs/transactions.md).
/// </summary>
public interface ITransactionCallback : IGrainObserver
{
    /// <summary>
    /// Every shard is held. The returned task completes once the transaction's commands have run; until then the
    /// chain, and with it every hold, stays in place.
    /// </summary>
    /// <returns>True to keep what the transaction ran; false to have each shard put its keys back as they were.</returns>
    Task<bool> Held();
}

/// <summary>How a transaction's hold chain ended, as a shard reports it for itself and the shards after it.</summary>
[GenerateSerializer, Flags]
public enum HoldEnd
{
    /// <summary>The transaction is rolled back: each shard put its keys back as they were.</summary>
    RolledBack = 0,

    /// <summary>The transaction is kept.</summary>
    Committed = 1,

    /// <summary>
    /// The chain broke at or after this shard: the outcome was learned by asking the last shard, which decides
    /// (<see cref="IShardGrain.Outcome"/>).
    /// </summary>
    Broken = 2,
}

/// <summary>How long a transaction's outcome is asked for and answered.</summary>
public static class TransactionOutcome
{
    /// <summary>
    /// How long a held shard whose chain broke asks the transaction's last shard whether to keep what it ran, before it
    /// rolls back; shards answer for twice as long.
    /// </summary>
    public static readonly TimeSpan AskedFor = TimeSpan.FromMinutes(1);
}
