namespace Cubby.Grains.Replication;

/// <summary>A shard's entries as a new replica starts from them (<see cref="Shard.SnapshotAsync"/>).</summary>
/// <param name="Chunks">The entries as migration chunks.</param>
/// <param name="Sequence">The last batch sealed before the first chunk was taken: the replica takes the batches after it.</param>
/// <param name="Transactions">The transaction the entries await the outcome of, if any, and how others ended lately.</param>
internal sealed record ShardSnapshot(byte[][] Chunks, long Sequence, ShardTransactions Transactions);
