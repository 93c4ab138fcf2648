using Orleans;
using Orleans.Services;

namespace Cubby.Sharding;

/// <summary>
/// Every silo's entry point for batches of single-key operations from a gateway client: the client addresses it at a
/// gateway, so a batch travels in one message to the silo whose shards it names, and each operation runs on its shard
/// there in that shard's turn. An operation whose shard is not open on that silo, or that fails, is answered as such and
/// not retried here: the client runs it as a single shard-grain call, which Orleans routes wherever the shard is.
/// </summary>
public interface IShardBatchService : IGrainService
{
    /// <summary>
    /// Runs each operation on its shard on this silo, in order. A batch runs in well under a millisecond on a live silo;
    /// one unanswered for a second went to a silo that is stopping or gone, and its operations are better sent to
    /// their grains than waited for. Writes that arrive after <paramref name="writeDeadline"/> are not run (answered
    /// <see cref="ShardOperationStatus.Failed"/>): their callers no longer wait (<see cref="CallDeadline"/>).
    /// </summary>
    /// <param name="operations">The operations.</param>
    /// <param name="writeDeadline">The earliest deadline of the batch's writes, in UTC ticks; <see cref="CallDeadline.None"/> for none.</param>
    /// <returns>One result per operation, in the same order.</returns>
    [ResponseTimeout("00:00:01")]
    ValueTask<ShardOperationResult[]> Run(ShardOperation[] operations, long writeDeadline);

    /// <summary>
    /// Runs the operations as <see cref="Run"/> does; for each <see cref="ShardOperationKind.TrackedGet"/> the shard also
    /// remembers, in the read's turn, that <paramref name="reader"/> read the key, and this silo tells the reader when
    /// the key next changes, is removed or expires, or when its shard is flushed or leaves this silo.
    /// </summary>
    /// <param name="operations">The operations.</param>
    /// <param name="writeDeadline">The earliest deadline of the batch's writes, in UTC ticks; <see cref="CallDeadline.None"/> for none.</param>
    /// <param name="reader">The client's near cache.</param>
    /// <returns>One result per operation, in the same order.</returns>
    [ResponseTimeout("00:00:01")]
    ValueTask<ShardOperationResult[]> RunTracked(ShardOperation[] operations, long writeDeadline, INearCacheReader reader);

    /// <summary>
    /// Renews a near-cache reader's lease: says which link to it this silo keeps (opening one when there is none) and how
    /// many invalidation batches went on it. A reader that has received them all may keep what it read through this
    /// silo for the lease's term from before it sent the renewal.
    /// </summary>
    /// <param name="reader">The client's near cache.</param>
    /// <param name="terms">How long the reader serves what it read after the renewal, and whether changes wait for it.</param>
    /// <returns>The link's identity and count.</returns>
    [ResponseTimeout("00:00:01")]
    ValueTask<NearCacheLease> Renew(INearCacheReader reader, NearCacheTerms terms);

    /// <summary>
    /// The reader stopped serving what it read through this silo (its client is closing): changes no longer wait for it.
    /// </summary>
    /// <param name="reader">The client's near cache.</param>
    /// <returns>Done once changes no longer wait for the reader.</returns>
    [ResponseTimeout("00:00:01")]
    ValueTask Release(INearCacheReader reader);

    /// <summary>The shards this silo holds open now or is the home of; unanswered for a second, the silo is stopping or gone.</summary>
    /// <returns>Their numbers.</returns>
    [ResponseTimeout("00:00:01")]
    ValueTask<int[]> Slots();
}
