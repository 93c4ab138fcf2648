namespace Cubby.Grains.Replication;

/// <summary>
/// The changes one turn made to a shard, as the primary sends them to its replicas: each changed key's state at the end
/// of the turn, so applying batches in sequence order leaves a replica holding what the primary held.
/// </summary>
/// <param name="Sequence">The batch's number in its primary's sequence, from 1, without gaps.</param>
/// <param name="Cleared">Whether the shard was emptied first (FLUSHALL, FLUSHDB).</param>
/// <param name="Upserts">The keys written, with their values and expiry, as one migration chunk; null when none.</param>
/// <param name="Removed">The keys removed: deleted, expired or evicted.</param>
/// <param name="Holder">
/// The call chain of the transaction holding the shard when the batch was sealed, whose outcome is not known yet;
/// <see cref="Guid.Empty"/> when none held it (a hold's last batch, sealed as it ends, has none).
/// </param>
/// <param name="Held">That transaction, in the first batch its hold sealed; null in the others.</param>
/// <param name="Ended">In the batch a hold's end sealed: how its transaction ended, when that is known.</param>
[GenerateSerializer]
[Immutable]
[SuppressReferenceTracking]
[Alias("cubby.replica-batch")]
internal sealed record ReplicaBatch(
    [property: Id(0)] long Sequence,
    [property: Id(1)] bool Cleared,
    [property: Id(2)] byte[]? Upserts,
    [property: Id(3)] byte[][] Removed,
    [property: Id(4)] Guid Holder = default,
    [property: Id(5)] HeldTransaction? Held = null,
    [property: Id(6)] TransactionEnd? Ended = null);

/// <summary>Batches of one shard's primary for its replica on the receiving silo.</summary>
/// <param name="Slot">The shard.</param>
/// <param name="Epoch">The primary's epoch: the cluster membership version when it became primary.</param>
/// <param name="Batches">Consecutive batches; those the replica already applied are skipped.</param>
[GenerateSerializer]
[Immutable]
[SuppressReferenceTracking]
[Alias("cubby.replica-shipment")]
internal sealed record ReplicaShipment(
    [property: Id(0)] int Slot,
    [property: Id(1)] long Epoch,
    [property: Id(2)] ReplicaBatch[] Batches);

/// <summary>What a replica answers its primary.</summary>
[GenerateSerializer]
[Alias("cubby.replica-answer")]
internal enum ReplicaAnswer
{
    /// <summary>The batches (or the snapshot) are applied.</summary>
    Applied,

    /// <summary>The replica does not follow this primary's sequence (it is new, or missed a batch): send a snapshot.</summary>
    NeedsSnapshot,

    /// <summary>
    /// A newer primary of the shard, or the shard itself, is on the replica's silo: the sender is no longer the shard's
    /// primary and must not acknowledge writes.
    /// </summary>
    Fenced,
}
