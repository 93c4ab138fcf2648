using Microsoft.Extensions.Logging;
using Orleans.Runtime.Services;

namespace Cubby.Grains.Replication;

/// <summary>Answers <see cref="IShardReplicaService"/> on this silo from its <see cref="ShardReplicas"/>.</summary>
internal sealed class ShardReplicaService(GrainId id, global::Orleans.Runtime.Silo silo, ILoggerFactory loggers, ShardReplicas replicas)
    : GrainService(id, silo, loggers), IShardReplicaService
{
    public Task<ReplicaAnswer[]> ApplyAll(SiloAddress primary, ReplicaShipment[] shipments) =>
        Task.FromResult(Array.ConvertAll(shipments, shipment => replicas.Apply(primary, shipment.Slot, shipment.Epoch, shipment.Batches)));

    public Task<ReplicaAnswer> Install(SiloAddress primary, int slot, long epoch, long sequence, byte[][] chunks, ShardTransactions transactions) =>
        Task.FromResult(replicas.Install(primary, slot, epoch, sequence, chunks, transactions));

    public Task<ReplicaPosition?> PositionOf(int slot) => Task.FromResult(replicas.PositionOf(slot));

    public Task<ReplicaCopy?> HandOver(int slot, long epoch) => replicas.HandOverAsync(slot, epoch);

    public Task Forget(int slot, long epoch)
    {
        replicas.Forget(slot, epoch);
        return Task.CompletedTask;
    }
}

/// <summary>Reaches the <see cref="IShardReplicaService"/> of a given silo.</summary>
internal sealed class ShardReplicaSilos(IServiceProvider services) : GrainServiceClient<IShardReplicaService>(services)
{
    public IShardReplicaService Of(SiloAddress silo) => GetGrainService(silo);
}
