using Orleans.Services;

namespace Cubby.Grains.Replication;

/// <summary>
/// Every shard-hosting silo's keeper of other silos' shard replicas (an Orleans grain service): a primary sends each
/// turn's changes here before its callers get their answers, and the silo that takes a dead primary's shard starts from
/// the freshest replica any silo kept.
/// </summary>
[Alias("cubby.shard-replicas")]
internal interface IShardReplicaService : IGrainService
{
    /// <summary>Applies each shipment's batches to its shard's replica, in order, if they follow what that replica holds.</summary>
    /// <param name="primary">The sending silo, which holds the shipments' primaries.</param>
    /// <param name="shipments">Batches of the sending silo's primaries, any number of shards.</param>
    /// <returns>One answer per shipment, in the same order.</returns>
    [Alias("apply-all")]
    [ResponseTimeout("00:00:05")]
    Task<ReplicaAnswer[]> ApplyAll(SiloAddress primary, ReplicaShipment[] shipments);

    /// <summary>Replaces the replica with a primary's snapshot, taken when its sequence stood at <paramref name="sequence"/>.</summary>
    /// <param name="primary">The sending silo, which holds the shard's primary.</param>
    /// <param name="slot">The shard.</param>
    /// <param name="epoch">The primary's epoch.</param>
    /// <param name="sequence">The last batch the snapshot includes.</param>
    /// <param name="chunks">The shard's entries as migration chunks.</param>
    /// <param name="transactions">The transaction whose outcome the entries await, if any, and how others ended lately.</param>
    [Alias("install")]
    [ResponseTimeout("00:00:10")]
    Task<ReplicaAnswer> Install(SiloAddress primary, int slot, long epoch, long sequence, byte[][] chunks, ShardTransactions transactions);

    /// <summary>Where this silo's replica of <paramref name="slot"/> stands; null when it keeps none.</summary>
    /// <param name="slot">The shard.</param>
    [Alias("position")]
    [ResponseTimeout("00:00:02")]
    Task<ReplicaPosition?> PositionOf(int slot);

    /// <summary>
    /// Copies this silo's replica of <paramref name="slot"/> for the shard's new primary of <paramref name="epoch"/>, which
    /// resumed elsewhere without its entries; primaries of older epochs are refused from then on, and the replica is kept
    /// until it is forgotten. Null when it keeps none.
    /// </summary>
    /// <param name="slot">The shard.</param>
    /// <param name="epoch">The new primary's epoch.</param>
    [Alias("hand-over")]
    [ResponseTimeout("00:00:10")]
    Task<ReplicaCopy?> HandOver(int slot, long epoch);

    /// <summary>Drops the replica of a primary of <paramref name="epoch"/> or older: this silo is no longer one of its replicas.</summary>
    /// <param name="slot">The shard.</param>
    /// <param name="epoch">The primary's epoch.</param>
    [Alias("forget")]
    Task Forget(int slot, long epoch);
}
