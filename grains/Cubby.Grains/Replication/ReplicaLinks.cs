using System.Collections.Concurrent;

namespace Cubby.Grains.Replication;

/// <summary>
/// This silo's replication stream to each other silo: the batches every primary here sends to replicas on one silo
/// travel together, in one message at a time (<see cref="IShardReplicaService.ApplyAll"/>), instead of one message per
/// shard. Under load many shards' batches share each message, as many changes of one shard share a batch.
/// </summary>
internal sealed class ReplicaLinks(ShardReplicaSilos silos)
{
    private readonly ConcurrentDictionary<SiloAddress, ReplicaLink> _links = new();

    /// <summary>Sends <paramref name="batches"/> of shard <paramref name="slot"/> to its replica on <paramref name="target"/>; completes with the replica's answer.</summary>
    public Task<ReplicaAnswer> ApplyAsync(SiloAddress target, int slot, long epoch, ReplicaBatch[] batches) =>
        _links.GetOrAdd(target, static (address, silos) => new ReplicaLink(silos.Of(address)), silos).ApplyAsync(new ReplicaShipment(slot, epoch, batches));

    private sealed class ReplicaLink(IShardReplicaService replica)
    {
        private readonly Lock _gate = new();
        private List<(ReplicaShipment Shipment, TaskCompletionSource<ReplicaAnswer> Answer)> _queued = [];
        private bool _sending;

        public Task<ReplicaAnswer> ApplyAsync(ReplicaShipment shipment)
        {
            var answer = new TaskCompletionSource<ReplicaAnswer>(TaskCreationOptions.RunContinuationsAsynchronously);
            bool send;
            lock (_gate)
            {
                _queued.Add((shipment, answer));
                send = !_sending;
                _sending = true;
            }

            if (send)
            {
                _ = Task.Run(SendAsync);
            }

            return answer.Task;
        }

        /// <summary>Sends what is queued, one message at a time, until nothing is.</summary>
        private async Task SendAsync()
        {
            while (true)
            {
                List<(ReplicaShipment Shipment, TaskCompletionSource<ReplicaAnswer> Answer)> sending;
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

                try
                {
                    var answers = await replica.ApplyAll([.. sending.Select(static item => item.Shipment)]).ConfigureAwait(false);
                    for (var i = 0; i < sending.Count; i++)
                    {
                        sending[i].Answer.TrySetResult(answers[i]);
                    }
                }
                catch (Exception exception)
                {
                    foreach (var (_, answer) in sending)
                    {
                        answer.TrySetException(exception);
                    }
                }
            }
        }
    }
}
