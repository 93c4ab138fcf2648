using System.Collections.Concurrent;
using Cubby.Grains.Messaging;

namespace Cubby.Grains.Replication;

/// <summary>
/// This silo's replication stream to each other silo: the batches every primary here posts for replicas on one silo
/// travel together, in order, one message in flight at a time (<see cref="IShardReplicaService.ApplyAll"/>), and each
/// primary hears its replica's answer (<see cref="ShardReplicator.OnApplied"/>). Under load many shards' batches
/// share each message, as many changes of one shard share a batch.
/// </summary>
internal sealed class ReplicaLinks(ShardReplicaSilos silos, ILocalSiloDetails local)
{
    private readonly ConcurrentDictionary<SiloAddress, ReplicaLink> _links = new();
    private readonly ShardReplicaSilos _silos = silos;
    private readonly SiloAddress _self = local.SiloAddress;

    /// <summary>Queues <paramref name="shipment"/> for <paramref name="target"/>, behind everything posted there before.</summary>
    public void Post(SiloAddress target, ShardReplicator sender, ReplicaShipment shipment) =>
        _links.GetOrAdd(target, static (address, links) => new ReplicaLink(address, links._silos.Of(address), links._self), this).Post(sender, shipment);

    /// <summary>The stream to one silo; the silo's answer to each message goes to each primary whose shipment it carried.</summary>
    private sealed class ReplicaLink
    {
        private readonly SerialBatches<(ShardReplicator Sender, ReplicaShipment Shipment)> _batches;

        public ReplicaLink(SiloAddress target, IShardReplicaService replica, SiloAddress self) =>
            _batches = new(sending => SendAsync(target, replica, self, sending));

        public void Post(ShardReplicator sender, ReplicaShipment shipment) => _batches.Post((sender, shipment));

        private static async Task SendAsync(SiloAddress target, IShardReplicaService replica, SiloAddress self, List<(ShardReplicator Sender, ReplicaShipment Shipment)> sending)
        {
            ReplicaAnswer[]? answers = null;
            Exception? failure = null;
            try
            {
                answers = await replica.ApplyAll(self, [.. sending.Select(static item => item.Shipment)]).ConfigureAwait(false);
            }
            catch (Exception exception)
            {
                failure = exception;
            }

            for (var i = 0; i < sending.Count; i++)
            {
                var (sender, shipment) = sending[i];
                if (answers is not null)
                {
                    sender.OnApplied(target, shipment.Batches[^1].Sequence, answers[i]);
                }
                else
                {
                    sender.OnFailed(target, failure!);
                }
            }
        }
    }
}
