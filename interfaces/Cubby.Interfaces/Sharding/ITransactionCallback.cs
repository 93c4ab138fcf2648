using Orleans;

namespace Cubby.Sharding;

/// <summary>
/// The silo running a transaction (MULTI ... EXEC), told by the last shard of a <see cref="IShardGrain.Hold"/> chain
/// that every shard of the transaction is held, and the one that decides whether what it ran is kept.
/// </summary>
public interface ITransactionCallback : IGrainObserver
{
    /// <summary>
    /// Every shard is held. The returned task completes once the transaction's commands have run; until then the
    /// chain, and with it every hold, stays in place.
    /// </summary>
    /// <returns>True when what the transaction ran is kept; false when each shard puts its keys back as they were.</returns>
    Task<bool> Held();

    /// <summary>
    /// Asked by a held shard whose part of the chain broke (a call across a partition timed out): whether the
    /// transaction is kept, once that is decided.
    /// </summary>
    /// <returns>True when what the transaction ran is kept; false when it is rolled back, or never ran.</returns>
    Task<bool> Committed();
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
    /// The chain broke at or after this shard: shards past the break learn the outcome by asking the coordinator
    /// (<see cref="ITransactionCallback.Committed"/>), perhaps later, so it must go on answering for a while.
    /// </summary>
    Broken = 2,
}

/// <summary>How long a transaction's outcome is asked for and answered.</summary>
public static class TransactionOutcome
{
    /// <summary>
    /// How long a held shard whose chain broke asks the silo running the transaction whether to keep what it ran, before
    /// it rolls back; that silo answers for twice as long.
    /// </summary>
    public static readonly TimeSpan AskedFor = TimeSpan.FromMinutes(1);
}
