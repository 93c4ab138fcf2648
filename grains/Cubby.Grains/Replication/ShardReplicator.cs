using Cubby.Diagnostics;
using Cubby.Grains.Placement;
using Microsoft.Extensions.Logging;

namespace Cubby.Grains.Replication;

/// <summary>
/// Carries one primary shard's changes to its replicas, on the silos ranked after it (<see cref="ShardHomes.ReplicasOf"/>),
/// and tells its callers when their changes are on every replica. A batch sealed in the shard's turn is posted at once
/// to the stream of every replica that is in step (<see cref="ReplicaLinks"/>); a replica that is new, lost track or
/// did not answer is brought back in step by a sender of this shard's own, with a snapshot of the whole shard or the
/// batches it lacks, after which it streams again. When the ranking moves a replica to another silo, the one it had
/// keeps streaming, and acknowledging, until every replica of the new ranking is in step: writes do not wait for a new
/// replica's snapshot, and the shard never has fewer copies than configured. A replica's silo that does not answer
/// holds acknowledgements back until Orleans declares it dead and the ranking moves on. A replica that answers <see cref="ReplicaAnswer.Fenced"/>
/// means another primary has taken the shard: from then on this one acknowledges nothing.
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

    // Sealed batches not yet applied by every replica, in sequence order: what a replica that fell behind is sent again.
    private readonly List<ReplicaBatch> _batches = [];
    private readonly List<(long Sequence, TaskCompletionSource Done)> _waiters = [];
    private readonly Dictionary<SiloAddress, Replica> _targets = [];

    // Silos that left the ranking: told to forget their copy only once the new ranking's replicas are in step, so the
    // shard never has fewer copies than it should in between.
    private readonly HashSet<SiloAddress> _leaving = [];
    private bool _olderEpochsForgotten;
    private readonly SemaphoreSlim _wake = new(0);
    private readonly CancellationTokenSource _stopping = new();
    private long _acknowledged;
    private long _rankedAt = -1;
    private int _replicaCount;

    // Replicas the current ranking names: how many in step it takes to acknowledge.
    private int _ranked;
    private Exception? _fenced;
    private Task _loop = Task.CompletedTask;

    private ShardReplicator(Shard shard, int replicas, long epoch, ShardHomes homes, ShardReplicaSilos silos, ReplicaLinks links, ILogger logger)
    {
        _shard = shard;
        _replicas = replicas;
        _epoch = epoch;
        _homes = homes;
        _silos = silos;
        _links = links;
        _logger = logger;
    }

    /// <summary>The last sequence number every replica has applied.</summary>
    public long Acknowledged => Volatile.Read(ref _acknowledged);

    /// <summary>
    /// Whether the shard must record its changes: it has replicas, or the ranking changed since it last looked and it may
    /// now have some. A shard with nowhere to keep a copy (a cluster of one silo) records nothing: a replica it gains
    /// later starts from a snapshot, taken after recording resumed. The ranking is the one this silo has heard of
    /// (<see cref="ShardHomes.HeardStamp"/>): a write in the moment before a joining silo's manifest is heard is
    /// ordered before the join, and the new replica's snapshot, taken after, holds it.
    /// </summary>
    public bool Recording => Volatile.Read(ref _replicaCount) > 0 || Volatile.Read(ref _rankedAt) != _homes.HeardStamp;

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
    /// Takes a batch sealed in the shard's turn and posts it to every replica in step. While the shard has nowhere to
    /// keep a copy (a cluster of one silo) and the ranking has not changed since that was found, the batch is
    /// acknowledged at once: a caller of a lone silo never waits for another thread.
    /// </summary>
    public void Enqueue(ReplicaBatch batch)
    {
        List<TaskCompletionSource>? done = null;
        var wake = false;
        lock (_gate)
        {
            if (_fenced is not null)
            {
                // Its callers fail at once (WhenAcknowledgedAsync); nothing more is sent.
                return;
            }

            var ranked = _rankedAt == _homes.RankingStamp;
            if (ranked && _targets.Count == 0 && _batches.Count == 0)
            {
                // A caller may already wait for this batch: it reads the sealed number, raised before this runs.
                Volatile.Write(ref _acknowledged, batch.Sequence);
                done = TakeWaitersUpTo(batch.Sequence);
            }
            else
            {
                _batches.Add(batch);
                wake = !ranked || _targets.Count == 0;
                foreach (var (target, replica) in _targets)
                {
                    if (replica.Streaming)
                    {
                        _links.Post(target, this, new ReplicaShipment(_shard.Slot, _epoch, [batch]));
                    }
                    else
                    {
                        wake = true;
                    }
                }
            }
        }

        done?.ForEach(static waiter => waiter.TrySetResult());
        if (wake)
        {
            Signal();
        }
    }

    /// <summary>Wakes the sender: there are changes to seal, or a replica to bring in step.</summary>
    public void Signal()
    {
        if (_wake.CurrentCount == 0)
        {
            _wake.Release();
        }
    }

    /// <summary>
    /// Wakes the sender when the ranking changed since it last looked, so a shard that takes no writes still moves its
    /// replicas to where they now belong (a silo that held one left, or a better-ranked one joined).
    /// </summary>
    public void FollowRanking()
    {
        if (Volatile.Read(ref _rankedAt) != _homes.RankingStamp)
        {
            Signal();
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

    /// <summary>A replica's answer to batches up to <paramref name="sequence"/> posted on its stream.</summary>
    public void OnApplied(SiloAddress target, long sequence, ReplicaAnswer answer)
    {
        List<TaskCompletionSource>? done = null;
        lock (_gate)
        {
            if (!_targets.TryGetValue(target, out var replica))
            {
                return;
            }

            switch (answer)
            {
                case ReplicaAnswer.Applied:
                    replica.Applied = Math.Max(replica.Applied, sequence);
                    done = AcknowledgeInStep();
                    break;
                case ReplicaAnswer.NeedsSnapshot when replica.Leaving:
                    // It lost its copy; the new ranking's replicas get theirs from a snapshot.
                    _targets.Remove(target);
                    done = AcknowledgeInStep();
                    break;
                case ReplicaAnswer.NeedsSnapshot:
                    (replica.Streaming, replica.NeedsSnapshot) = (false, true);
                    done = AcknowledgeInStep();
                    break;
            }
        }

        done?.ForEach(static waiter => waiter.TrySetResult());
        if (answer == ReplicaAnswer.Fenced)
        {
            Fence();
        }
        else if (answer == ReplicaAnswer.NeedsSnapshot)
        {
            Signal();
        }
    }

    /// <summary>A replica's stream could not deliver: the replica is brought back in step by the sender.</summary>
    public void OnFailed(SiloAddress target, Exception exception)
    {
        List<TaskCompletionSource>? done = null;
        lock (_gate)
        {
            if (!_targets.TryGetValue(target, out var replica) || !replica.Streaming)
            {
                return;
            }

            replica.Streaming = false;
            if (replica.Leaving)
            {
                // Not brought back: the new ranking's replicas are.
                _targets.Remove(target);
                done = AcknowledgeInStep();
            }
        }

        done?.ForEach(static waiter => waiter.TrySetResult());
        LogReplicaUnreachable(_logger, exception, _shard.Slot, target);
        Signal();
    }

    /// <summary>
    /// Stops sending. A shard moving to another silo first gives its replicas up to <paramref name="drain"/> to apply
    /// what callers still wait for, and those it applied are answered. Callers still waiting then fail, moving or not:
    /// a move may carry their writes to the new home, but it may also never arrive (its silo dying before the new home
    /// takes it), and an answered write must outlive that (docs/faults.md, the kill schedule's lost write).
    /// </summary>
    public async Task StopAsync(TimeSpan drain)
    {
        if (drain > TimeSpan.Zero && LastPending() is { } pending)
        {
            try
            {
                await pending.WaitAsync(drain).ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is TimeoutException or InvalidOperationException)
            {
                // Not applied in time, or fenced: those callers fail below.
            }
        }

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
            done.TrySetException(new InvalidOperationException($"Shard {_shard.Slot} deactivated before its replicas applied the write."));
        }
    }

    /// <summary>What the caller waiting for the highest sequence waits on (it ends after every other's), or null.</summary>
    private Task? LastPending()
    {
        lock (_gate)
        {
            return _waiters.Count == 0 ? null : _waiters.MaxBy(static waiter => waiter.Sequence).Done.Task;
        }
    }

    public void Dispose()
    {
        _stopping.Dispose();
        _wake.Dispose();
    }

    /// <summary>Seals changes made outside a caller's turn, follows the ranking, and brings replicas that are out of step back in.</summary>
    private async Task RunAsync()
    {
        var token = _stopping.Token;
        while (!token.IsCancellationRequested)
        {
            await _wake.WaitAsync(token).ConfigureAwait(false);

            _shard.SealPendingChanges();
            Rank();
            var behind = new List<(SiloAddress Target, bool NeedsSnapshot)>();
            List<TaskCompletionSource>? done;
            lock (_gate)
            {
                foreach (var (target, replica) in _targets)
                {
                    if (!replica.Streaming && !replica.Leaving)
                    {
                        behind.Add((target, replica.NeedsSnapshot));
                    }
                }

                done = AcknowledgeInStep();
            }

            done?.ForEach(static waiter => waiter.TrySetResult());
            var retry = false;
            foreach (var (target, needsSnapshot) in behind)
            {
                switch (await CatchUpAsync(target, needsSnapshot, token).ConfigureAwait(false))
                {
                    case ReplicaAnswer.Fenced:
                        Fence();
                        return;
                    case null or ReplicaAnswer.NeedsSnapshot:
                        retry = true;
                        break;
                }
            }

            if (retry)
            {
                await Task.Delay(RetryDelay, token).ConfigureAwait(false);
                Signal();
            }
            else
            {
                ForgetSupersededCopies();
            }
        }
    }

    /// <summary>Follows the ranking when it changed: new replicas start with a snapshot, silos that left it are forgotten later.</summary>
    private void Rank()
    {
        var stamp = _homes.RankingStamp;
        if (stamp == Volatile.Read(ref _rankedAt))
        {
            return;
        }

        var ranked = _homes.ReplicasOf(_shard.Slot, _replicas);
        var homes = _homes.Homes();
        var home = _homes.HomeOf(_shard.Slot);
        lock (_gate)
        {
            foreach (var (former, replica) in _targets.Where(target => !ranked.Contains(target.Key)).ToArray())
            {
                // One in step goes on taking the stream until the new ranking's replicas are in step, unless its silo
                // is going (dead or departing) or is the shard's new home, where the copy would die with the primary.
                if (replica.Streaming && homes.Contains(former) && !former.Equals(home))
                {
                    replica.Leaving = true;
                }
                else
                {
                    _targets.Remove(former);
                }

                _leaving.Add(former);
            }

            foreach (var target in ranked)
            {
                if (!_targets.TryAdd(target, new Replica()))
                {
                    _targets[target].Leaving = false;
                }

                _leaving.Remove(target);
            }

            _ranked = ranked.Length;
            Volatile.Write(ref _replicaCount, _targets.Count);
            Volatile.Write(ref _rankedAt, stamp);
        }
    }

    /// <summary>
    /// Once every replica of the current ranking is in step: silos that left the ranking forget their copy, and, the
    /// first time, every other silo forgets copies kept for this shard's older primaries, which it no longer needs.
    /// </summary>
    private void ForgetSupersededCopies()
    {
        SiloAddress[] leaving;
        var olderEpochs = false;
        List<TaskCompletionSource>? done;
        lock (_gate)
        {
            if (_targets.Values.Any(static replica => !replica.Leaving && (!replica.Streaming || replica.NeedsSnapshot)))
            {
                return;
            }

            leaving = [.. _leaving];
            _leaving.Clear();
            foreach (var silo in leaving)
            {
                _targets.Remove(silo);
            }

            Volatile.Write(ref _replicaCount, _targets.Count);
            (olderEpochs, _olderEpochsForgotten) = (!_olderEpochsForgotten, true);

            // What only the leaving replicas had not answered yet is on every replica that stays.
            done = AcknowledgeInStep();
        }

        done?.ForEach(static waiter => waiter.TrySetResult());

        foreach (var silo in leaving)
        {
            Forget(silo, _epoch);
        }

        if (olderEpochs)
        {
            foreach (var silo in _homes.Homes().Where(silo => !silo.Equals(_homes.Self) && !leaving.Contains(silo)))
            {
                Forget(silo, _epoch - 1);
            }
        }
    }

    private void Forget(SiloAddress silo, long epoch) =>
        _ = _silos.Of(silo).Forget(_shard.Slot, epoch).ContinueWith(static _ => { }, TaskScheduler.Default);

    /// <summary>
    /// Brings <paramref name="target"/> back in step: a snapshot first if it needs one, then, in one step with letting it
    /// stream again, the batches it lacks, posted ahead of any sealed after. Returns the replica's answer to the
    /// snapshot (Applied without one), or null when it did not answer.
    /// </summary>
    private async Task<ReplicaAnswer?> CatchUpAsync(SiloAddress target, bool needsSnapshot, CancellationToken token)
    {
        long? installed = null;
        if (needsSnapshot)
        {
            lock (_gate)
            {
                if (_targets.TryGetValue(target, out var replica))
                {
                    // The snapshot includes everything up to here at least; the batches after must wait for it.
                    replica.SnapshotFrom = _acknowledged;
                }
            }

            try
            {
                var (chunks, sequence, transactions) = await _shard.SnapshotAsync(ShardGrain.MigrationChunkBytes).ConfigureAwait(false);
                var answer = await _silos.Of(target).Install(_homes.Self, _shard.Slot, _epoch, sequence, chunks, transactions).WaitAsync(token).ConfigureAwait(false);
                if (answer != ReplicaAnswer.Applied)
                {
                    return answer;
                }

                installed = sequence;
                LogSnapshotSent(_logger, _shard.Slot, target, chunks.Length, sequence);
            }
            catch (Exception exception) when (exception is not OperationCanceledException || !token.IsCancellationRequested)
            {
                LogReplicaUnreachable(_logger, exception, _shard.Slot, target);
                return null;
            }
        }

        List<TaskCompletionSource>? done;
        lock (_gate)
        {
            if (!_targets.TryGetValue(target, out var replica))
            {
                return ReplicaAnswer.Applied;
            }

            if (installed is { } sequence)
            {
                (replica.Applied, replica.NeedsSnapshot, replica.SnapshotFrom) = (Math.Max(replica.Applied, sequence), false, null);
            }

            // A replica skips batches it has applied, so what it may have applied unanswered is simply sent again.
            var missing = _batches.Where(batch => batch.Sequence > replica.Applied).ToArray();
            if (missing.Length > 0)
            {
                _links.Post(target, this, new ReplicaShipment(_shard.Slot, _epoch, missing));
            }

            replica.Streaming = true;
            done = AcknowledgeInStep();
        }

        done?.ForEach(static waiter => waiter.TrySetResult());
        return ReplicaAnswer.Applied;
    }

    /// <summary>With no replica to keep: everything sealed is acknowledged. Called under the gate.</summary>
    private List<TaskCompletionSource>? AcknowledgeAlone() => AcknowledgeUpTo(_shard.SealedSequence);

    /// <summary>
    /// What every replica in step has applied is acknowledged, once as many are in step as the ranking names: a new
    /// replica still taking its snapshot, or one that stopped answering, is not waited for while a replica the ranking
    /// moved away from stands in for it. Called under the gate.
    /// </summary>
    private List<TaskCompletionSource>? AcknowledgeInStep()
    {
        if (_ranked == 0)
        {
            // Nowhere the ranking keeps a copy (a lone silo, or one whose other silo is the home it moves to).
            return AcknowledgeAlone();
        }

        var inStep = 0;
        var applied = long.MaxValue;
        foreach (var replica in _targets.Values)
        {
            if (replica.Streaming)
            {
                inStep++;
                applied = Math.Min(applied, replica.Applied);
            }
        }

        return inStep < _ranked ? null : AcknowledgeUpTo(applied);
    }

    private List<TaskCompletionSource>? AcknowledgeUpTo(long sequence)
    {
        if (sequence <= _acknowledged)
        {
            return null;
        }

        Volatile.Write(ref _acknowledged, sequence);

        // Batches a replica being brought back in step still needs stay: those after what it applied, or after where
        // its snapshot starts.
        var kept = sequence;
        foreach (var replica in _targets.Values)
        {
            if (!replica.Streaming)
            {
                kept = Math.Min(kept, replica.NeedsSnapshot ? replica.SnapshotFrom ?? long.MaxValue : replica.Applied);
            }
        }

        var needed = _batches.FindIndex(batch => batch.Sequence > kept);
        _batches.RemoveRange(0, needed < 0 ? _batches.Count : needed);
        return TakeWaitersUpTo(sequence);
    }

    /// <summary>Removes the waiters for sequence numbers up to <paramref name="sequence"/>, for the caller to complete outside the gate.</summary>
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
            if (_fenced is not null)
            {
                return;
            }

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

    /// <summary>One replica's state as this primary knows it.</summary>
    private sealed class Replica
    {
        /// <summary>The last batch it is known to have applied.</summary>
        public long Applied { get; set; }

        /// <summary>Whether new batches are posted to it as they are sealed; false while it is brought back in step.</summary>
        public bool Streaming { get; set; }

        /// <summary>Whether it must start over from a snapshot.</summary>
        public bool NeedsSnapshot { get; set; } = true;

        /// <summary>While its snapshot is taken and sent: the acknowledged sequence it starts after at the latest.</summary>
        public long? SnapshotFrom { get; set; }

        /// <summary>No longer ranked: streamed to, and counted, until the ranking's replicas are in step.</summary>
        public bool Leaving { get; set; }
    }

    [LoggerMessage(EventId = LogEvents.ReplicaSnapshotSent, Level = LogLevel.Debug, Message = "Shard {Shard} sent a snapshot of {Chunks} chunks, up to batch {Sequence}, to its replica on {Silo}")]
    private static partial void LogSnapshotSent(ILogger logger, int shard, SiloAddress silo, int chunks, long sequence);

    [LoggerMessage(EventId = LogEvents.ReplicaUnreachable, Level = LogLevel.Information, Message = "Shard {Shard} could not reach its replica on {Silo}; its writes wait until it answers or leaves the cluster")]
    private static partial void LogReplicaUnreachable(ILogger logger, Exception exception, int shard, SiloAddress silo);

    [LoggerMessage(EventId = LogEvents.ShardFenced, Level = LogLevel.Warning, Message = "Shard {Shard} (epoch {Epoch}) was fenced: a newer primary holds its replicas, so this copy acknowledges no more writes")]
    private static partial void LogFenced(ILogger logger, int shard, long epoch);
}
