using System.Collections.Concurrent;

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

    private sealed class ReplicaLink(SiloAddress target, IShardReplicaService replica, SiloAddress self)
    {
        private readonly Lock _gate = new();
        private List<(ShardReplicator Sender, ReplicaShipment Shipment)> _queued = [];
        private bool _sending;

        public void Post(ShardReplicator sender, ReplicaShipment shipment)
        {
            lock (_gate)
            {
                _queued.Add((sender, shipment));
                if (_sending)
                {
                    return;
                }

                _sending = true;
            }

            // Posted in a shard's turn: the message goes out from a pool thread, not under that turn.
            _ = Task.Run(SendAsync);
        }

        /// <summary>Sends what is queued, one message at a time, until nothing is.</summary>
        private async Task SendAsync()
        {
            while (true)
            {
                List<(ShardReplicator Sender, ReplicaShipment Shipment)> sending;
                lock (_gate)
                {
                    if (_queued.Count == 0)
                    {
                        _sending = false;
                        return;
                    }

                    sending = _queued;
                    _queued = [];
                }

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
}
