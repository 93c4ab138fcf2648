using Cubby.Diagnostics;
using Cubby.Grains.Placement;
using Microsoft.Extensions.Logging;

namespace Cubby.Grains.Replication;

/// <summary>
/// Carries one primary shard's changes to its replicas, on the silos ranked after it (<see cref="ShardHomes.ReplicasOf"/>),
/// and tells its callers when their changes are on every replica. Batches go out in sequence, as many at once as have
/// been sealed since the last send, to every replica together; a replica that is new, or lost track, first gets a
/// snapshot of the whole shard. A replica's silo that does not answer holds acknowledgements back until Orleans
/// declares it dead and the ranking moves on. A replica that answers <see cref="ReplicaAnswer.Fenced"/> means another
/// primary has taken the shard: from then on this one acknowledges nothing.
/// </summary>
internal sealed partial class ShardReplicator : IDisposable
{
    private static readonly TimeSpan RetryDelay = TimeSpan.FromMilliseconds(100);

    private readonly Shard _shard;
    private readonly int _replicas;
    private readonly long _epoch;
    private readonly ShardHomes _homes;
    private readonly ShardReplicaSilos _silos;
    private readonly ReplicaLinks _links;
    private readonly ILogger _logger;
    private readonly Lock _gate = new();
    private readonly List<ReplicaBatch> _batches = [];
    private readonly List<(long Sequence, TaskCompletionSource Done)> _waiters = [];
    private readonly Dictionary<SiloAddress, long> _applied = [];
    private readonly SemaphoreSlim _wake = new(0);
    private readonly CancellationTokenSource _stopping = new();
    private long _acknowledged;

    // The replicas' silos as last ranked, and the ranking stamp they were ranked at (-1: never).
    private SiloAddress[] _targets = [];
    private long _targetsVersion = -1;
    private Exception? _fenced;
    private Task _loop = Task.CompletedTask;

    public ShardReplicator(Shard shard, int replicas, long epoch, ShardHomes homes, ShardReplicaSilos silos, ReplicaLinks links, ILogger logger)
    {
        _links = links;
        _shard = shard;
        _replicas = replicas;
        _epoch = epoch;
        _homes = homes;
        _silos = silos;
        _logger = logger;
    }

    /// <summary>The last sequence number every replica has applied.</summary>
    public long Acknowledged => Volatile.Read(ref _acknowledged);

    /// <summary>Starts replicating <paramref name="shard"/>'s changes, the first replicas getting a snapshot.</summary>
    public static ShardReplicator Start(Shard shard, int replicas, long epoch, ShardHomes homes, ShardReplicaSilos silos, ReplicaLinks links, ILogger logger)
    {
        var replicator = new ShardReplicator(shard, replicas, epoch, homes, silos, links, logger);
        shard.ReplicateTo(replicator);
        replicator._loop = Task.Run(replicator.RunAsync);
        replicator.Signal();
        return replicator;
    }

    /// <summary>
    /// Takes a batch sealed in the shard's turn. While the shard has nowhere to keep a copy (a cluster of one silo) and
    /// membership has not changed since that was last found, the batch is acknowledged at once: a caller of a lone silo
    /// never waits for the sender, which needs a thread-pool thread that a starved pool may not give it in time.
    /// </summary>
    public void Enqueue(ReplicaBatch batch)
    {
        List<TaskCompletionSource>? done;
        lock (_gate)
        {
            if (_targets.Length != 0 || _batches.Count != 0 || _fenced is not null || _targetsVersion != _homes.RankingStamp)
            {
                _batches.Add(batch);
                done = null;
            }
            else
            {
                // A caller may already wait for this batch: it reads the sealed number, raised before this runs.
                Volatile.Write(ref _acknowledged, batch.Sequence);
                done = TakeWaitersUpTo(batch.Sequence);
            }
        }

        if (done is null)
        {
            Signal();
        }
        else
        {
            done.ForEach(static waiter => waiter.TrySetResult());
        }
    }

    /// <summary>Wakes the sender: there are changes to seal or batches to send.</summary>
    public void Signal()
    {
        if (_wake.CurrentCount == 0)
        {
            _wake.Release();
        }
    }

    /// <summary>Completes when every replica has applied the batches up to <paramref name="sequence"/>.</summary>
    public ValueTask WhenAcknowledgedAsync(long sequence)
    {
        if (Volatile.Read(ref _acknowledged) >= sequence)
        {
            return ValueTask.CompletedTask;
        }

        lock (_gate)
        {
            if (_fenced is { } fenced)
            {
                return ValueTask.FromException(fenced);
            }

            if (_acknowledged >= sequence)
            {
                return ValueTask.CompletedTask;
            }

            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Add((sequence, done));
            return new ValueTask(done.Task);
        }
    }

    /// <summary>
    /// Stops sending. When the shard moved to another silo with its entries, callers still waiting are answered: what
    /// they wrote travelled with it. Otherwise their writes are lost with the shard and they fail.
    /// </summary>
    public async Task StopAsync(bool moved)
    {
        await _stopping.CancelAsync().ConfigureAwait(false);
        try
        {
            await _loop.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            // Stopped while waiting.
        }

        List<(long Sequence, TaskCompletionSource Done)> waiters;
        lock (_gate)
        {
            waiters = [.. _waiters];
            _waiters.Clear();
        }

        foreach (var (_, done) in waiters)
        {
            if (moved)
            {
                done.TrySetResult();
            }
            else
            {
                done.TrySetException(new InvalidOperationException($"Shard {_shard.Slot} deactivated before its replicas applied the write."));
            }
        }
    }

    public void Dispose()
    {
        _stopping.Dispose();
        _wake.Dispose();
    }

    private async Task RunAsync()
    {
        var token = _stopping.Token;
        while (!token.IsCancellationRequested)
        {
            await _wake.WaitAsync(token).ConfigureAwait(false);

            // Changes made outside a caller's turn (expiry, eviction, a flush) are sealed by this turn.
            _shard.EnterTurn();
            _shard.ExitTurn();
            var sealedUpTo = _shard.SealedSequence;
            var version = _homes.RankingStamp;
            var targets = version == _targetsVersion ? _targets : _homes.ReplicasOf(_shard.Slot, _replicas);
            ForgetAllBut(targets);
            var results = await Task.WhenAll(targets.Select(target => SyncAsync(target, _applied.TryGetValue(target, out var applied) ? applied : null, sealedUpTo, token))).ConfigureAwait(false);
            for (var i = 0; i < targets.Length; i++)
            {
                if (results[i].Answer == ReplicaAnswer.Fenced)
                {
                    Fence();
                    return;
                }

                if (results[i].Applied is { } applied)
                {
                    _applied[targets[i]] = applied;
                }
                else
                {
                    _applied.Remove(targets[i]);
                }
            }

            var acknowledged = targets.Length == 0 ? sealedUpTo : targets.Min(target => _applied.GetValueOrDefault(target));
            Acknowledge(acknowledged, targets, version);
            if (acknowledged < sealedUpTo)
            {
                // A replica did not answer, or must start over: try again shortly, with the ranking as it is then.
                await Task.Delay(RetryDelay, token).ConfigureAwait(false);
                Signal();
            }
            else if (_shard.SealedSequence > sealedUpTo)
            {
                Signal();
            }
        }
    }

    /// <summary>
    /// Brings <paramref name="target"/>, which has applied up to <paramref name="applied"/> (null: it needs a snapshot),
    /// up to <paramref name="sealedUpTo"/>; returns its answer (null when it did not answer) and what it has applied now.
    /// </summary>
    private async Task<(ReplicaAnswer? Answer, long? Applied)> SyncAsync(SiloAddress target, long? applied, long sealedUpTo, CancellationToken token)
    {
        try
        {
            var replica = _silos.Of(target);
            if (applied is null)
            {
                var (chunks, sequence) = _shard.Snapshot(ShardGrain.MigrationChunkBytes);
                var installed = await replica.Install(_shard.Slot, _epoch, sequence, chunks).WaitAsync(token).ConfigureAwait(false);
                if (installed != ReplicaAnswer.Applied)
                {
                    return (installed, null);
                }

                applied = sequence;
                LogSnapshotSent(_logger, _shard.Slot, target, chunks.Length, sequence);
            }

            ReplicaBatch[] batches;
            lock (_gate)
            {
                batches = [.. _batches.Where(batch => batch.Sequence > applied && batch.Sequence <= sealedUpTo)];
            }

            if (batches.Length == 0)
            {
                return (ReplicaAnswer.Applied, applied);
            }

            var answer = await _links.ApplyAsync(target, _shard.Slot, _epoch, batches).WaitAsync(token).ConfigureAwait(false);
            return answer switch
            {
                ReplicaAnswer.Applied => (answer, batches[^1].Sequence),
                ReplicaAnswer.NeedsSnapshot => (answer, null),
                _ => (answer, applied),
            };
        }
        catch (Exception exception) when (exception is not OperationCanceledException || !token.IsCancellationRequested)
        {
            // Whether the last message arrived is unknown; resending is harmless, since a replica skips what it applied.
            LogReplicaUnreachable(_logger, exception, _shard.Slot, target);
            return (null, applied);
        }
    }

    /// <summary>Tells silos that left the ranking to drop their replica, and stops tracking them.</summary>
    private void ForgetAllBut(SiloAddress[] targets)
    {
        foreach (var former in _applied.Keys.Where(silo => !targets.Contains(silo)).ToList())
        {
            _applied.Remove(former);
            _ = _silos.Of(former).Forget(_shard.Slot, _epoch).ContinueWith(static _ => { }, TaskScheduler.Default);
        }
    }

    private void Acknowledge(long sequence, SiloAddress[] targets, long version)
    {
        List<TaskCompletionSource>? done = null;
        lock (_gate)
        {
            (_targets, _targetsVersion) = (targets, version);
            if (sequence <= _acknowledged)
            {
                return;
            }

            Volatile.Write(ref _acknowledged, sequence);
            _batches.RemoveAll(batch => batch.Sequence <= sequence);
            done = TakeWaitersUpTo(sequence);
        }

        done?.ForEach(static waiter => waiter.TrySetResult());
    }

    /// <summary>Removes the waiters for sequence numbers up to <paramref name="sequence"/>, for the caller to complete outside the lock.</summary>
    private List<TaskCompletionSource>? TakeWaitersUpTo(long sequence)
    {
        List<TaskCompletionSource>? done = null;
        for (var i = _waiters.Count - 1; i >= 0; i--)
        {
            if (_waiters[i].Sequence <= sequence)
            {
                (done ??= []).Add(_waiters[i].Done);
                _waiters.RemoveAt(i);
            }
        }

        return done;
    }

    private void Fence()
    {
        var fenced = new InvalidOperationException($"Shard {_shard.Slot} has a newer primary on another silo; this silo's copy can no longer acknowledge writes.");
        List<(long Sequence, TaskCompletionSource Done)> waiters;
        lock (_gate)
        {
            _fenced = fenced;
            waiters = [.. _waiters];
            _waiters.Clear();
        }

        LogFenced(_logger, _shard.Slot, _epoch);
        foreach (var (_, done) in waiters)
        {
            done.TrySetException(fenced);
        }
    }

    [LoggerMessage(EventId = LogEvents.ReplicaSnapshotSent, Level = LogLevel.Debug, Message = "Shard {Shard} sent a snapshot of {Chunks} chunks, up to batch {Sequence}, to its replica on {Silo}")]
    private static partial void LogSnapshotSent(ILogger logger, int shard, SiloAddress silo, int chunks, long sequence);

    [LoggerMessage(EventId = LogEvents.ReplicaUnreachable, Level = LogLevel.Information, Message = "Shard {Shard} could not reach its replica on {Silo}; its writes wait until it answers or leaves the cluster")]
    private static partial void LogReplicaUnreachable(ILogger logger, Exception exception, int shard, SiloAddress silo);

    [LoggerMessage(EventId = LogEvents.ShardFenced, Level = LogLevel.Warning, Message = "Shard {Shard} (epoch {Epoch}) was fenced: a newer primary holds its replicas, so this copy acknowledges no more writes")]
    private static partial void LogFenced(ILogger logger, int shard, long epoch);
}
