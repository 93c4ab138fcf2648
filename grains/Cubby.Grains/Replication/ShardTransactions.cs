namespace Cubby.Grains.Replication;

/// <summary>
/// A shard's transactions as a copy of it carries them (a replica's snapshot, a hand-over): the one whose outcome its
/// entries await, and the outcomes of those that held it lately, which its other shards may still ask for
/// (<see cref="Sharding.IShardGrain.Outcome"/>).
/// </summary>
/// <param name="Pending">The transaction whose outcome the entries await, if any (<see cref="Shard.PendingTransaction"/>).</param>
/// <param name="Ended">The outcomes the shard decided or learned lately.</param>
[GenerateSerializer]
[Immutable]
[SuppressReferenceTracking]
[Alias("cubby.shard-transactions")]
internal sealed record ShardTransactions([property: Id(0)] HeldTransaction? Pending, [property: Id(1)] TransactionEnd[] Ended)
{
    public static ShardTransactions None { get; } = new(null, []);
}

/// <summary>How a transaction that held a shard ended.</summary>
/// <param name="Chain">The transaction's call chain.</param>
/// <param name="Kept">Whether what it ran is kept.</param>
[GenerateSerializer]
[Immutable]
[Alias("cubby.transaction-end")]
internal sealed record TransactionEnd([property: Id(0)] Guid Chain, [property: Id(1)] bool Kept);
