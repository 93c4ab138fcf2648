using Orleans.Services;

namespace Cubby.Grains.Replication;

/// <summary>
/// Every shard-hosting silo's keeper of other silos' shard replicas (an Orleans grain service): a primary sends each
/// turn's changes here before its callers get their answers, and the silo that takes a dead primary's shard starts from
/// the replica it kept.
/// </summary>
[Alias("cubby.shard-replicas")]
internal interface IShardReplicaService : IGrainService
{
    /// <summary>Applies a primary's batches, in order, if they follow what this replica holds.</summary>
    /// <param name="slot">The shard.</param>
    /// <param name="epoch">The primary's epoch: the cluster membership version when it became primary.</param>
    /// <param name="batches">Consecutive batches; those already applied are skipped.</param>
    [Alias("apply")]
    Task<ReplicaAnswer> Apply(int slot, long epoch, ReplicaBatch[] batches);

    /// <summary>Replaces the replica with a primary's snapshot, taken when its sequence stood at <paramref name="sequence"/>.</summary>
    /// <param name="slot">The shard.</param>
    /// <param name="epoch">The primary's epoch.</param>
    /// <param name="sequence">The last batch the snapshot includes.</param>
    /// <param name="chunks">The shard's entries as migration chunks.</param>
    [Alias("install")]
    Task<ReplicaAnswer> Install(int slot, long epoch, long sequence, byte[][] chunks);

    /// <summary>Drops the replica of a primary of <paramref name="epoch"/> or older: this silo is no longer one of its replicas.</summary>
    /// <param name="slot">The shard.</param>
    /// <param name="epoch">The primary's epoch.</param>
    [Alias("forget")]
    Task Forget(int slot, long epoch);
}
