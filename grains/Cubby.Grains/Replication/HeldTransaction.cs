using Cubby.Sharding;

namespace Cubby.Grains.Replication;

/// <summary>
/// A transaction holding a shard, as the shard's replicas learn it with the changes it makes before its outcome is
/// known: a replica promoted while it holds such changes asks the transaction's outcome before it serves anyone, and
/// puts <see cref="Keys"/> back as <see cref="Before"/> when it was not kept. See docs/transactions.md.
/// </summary>
/// <param name="Chain">The transaction's call chain (<see cref="IShardGrain.Hold"/>).</param>
/// <param name="Slots">Every shard the transaction holds: the last decides its outcome, and any may have learned it.</param>
/// <param name="Keys">The transaction's keys in this shard.</param>
/// <param name="Before">Each key's entry when the hold began, aligned with <see cref="Keys"/>; null where it had none.</param>
[GenerateSerializer]
[Immutable]
[SuppressReferenceTracking]
[Alias("cubby.held-transaction")]
internal sealed record HeldTransaction(
    [property: Id(0)] Guid Chain,
    [property: Id(1)] int[] Slots,
    [property: Id(2)] byte[][] Keys,
    [property: Id(3)] ShardEntryCopy?[] Before);
