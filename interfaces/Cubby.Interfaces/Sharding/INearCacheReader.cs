using Orleans;

namespace Cubby.Sharding;

/// <summary>
/// A client's near cache as the silos see it: a grain observer the client creates, and passes with the batches whose
/// reads it keeps (<see cref="IShardBatchService.RunTracked"/>). The silo that ran such a read tells it, in order, when
/// a key it read next changes.
/// </summary>
[Alias("cubby.near-cache-reader")]
public interface INearCacheReader : IGrainObserver
{
    /// <summary>Takes a batch of invalidations, in the order their changes were made on the sending silo.</summary>
    /// <param name="sequence">
    /// How many invalidations the silo had queued for this reader up to the last of this batch (see
    /// <see cref="NearCacheLease.Posted"/>).
    /// </param>
    /// <param name="batch">What changed.</param>
    /// <returns>
    /// Done once the reader has dropped or updated what the batch names, with the keys whose
    /// <see cref="KeyInvalidation.Update"/> it did not keep (it no longer held them), or null when it kept every one:
    /// the silo stops sending those keys' values to it.
    /// </returns>
    [Alias("invalidated")]
    Task<byte[][]?> Invalidated(long sequence, KeyInvalidation[] batch);
}

/// <summary>What a near-cache reader asks of a silo when it renews its lease.</summary>
/// <param name="Lease">How long the reader serves what it read through the silo after it sent the renewal, at most.</param>
/// <param name="ChangesWait">
/// Whether a change of a key the reader holds is answered only once the reader took its invalidation, or, when it cannot
/// take it, once every lease the silo gave it before the change has ended; otherwise the change is answered as it is sent.
/// </param>
/// <param name="UpdatesUpTo">
/// The largest value, in bytes as stored, a change of a key the reader holds carries to it (so its next read stays local)
/// instead of only saying the key changed; 0 for none.
/// </param>
[GenerateSerializer, Immutable]
[Alias("cubby.near-cache-terms")]
public readonly record struct NearCacheTerms([property: Id(0)] TimeSpan Lease, [property: Id(1)] bool ChangesWait, [property: Id(2)] int UpdatesUpTo = 0);

/// <summary>What a silo says of its link to a near-cache reader when the reader renews its lease.</summary>
/// <param name="Incarnation">
/// The link's identity: a new value means the silo forgot the reader (it restarted, or the link failed) and may not
/// tell it of keys read before.
/// </param>
/// <param name="Posted">How many invalidations the silo has queued for the reader so far; the reader has them all once it has had a batch numbered this high.</param>
/// <param name="Lasts">
/// How long, counted from when the reader sent the renewal, it may serve what it read through the silo: the lease it
/// asked for, cut short to what the silo has left of its own right to serve its shards; null for the lease asked for.
/// </param>
[GenerateSerializer, Immutable]
[Alias("cubby.near-cache-lease")]
public readonly record struct NearCacheLease([property: Id(0)] long Incarnation, [property: Id(1)] long Posted, [property: Id(2)] TimeSpan? Lasts = null);
