using System.Globalization;
using Cubby.Silo.Hosting;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// This silo's membership, over any <see cref="IMembershipTable"/>: joins with a new generation, then keeps three
/// timers: a heartbeat (the alive time in its row), a table refresh (raises <see cref="Changed"/> for each newer
/// version, fences this silo when the table says it is dead, and declares peers with a stale heartbeat dead), and
/// probes of every live peer (consecutive misses lead to a vote; enough votes from distinct silos declare it dead).
/// Table errors are logged and retried at the next tick; they never stop the silo.
/// </summary>
internal sealed partial class MembershipService : IClusterMembership, IDisposable
{
    // Join retries a failing table this many times (a Development primary may still be starting).
    private const int JoinAttempts = 10;

    // A peer's row may change under a vote; after this many lost races the vote waits for the next miss.
    private const int PeerWriteAttempts = 5;

    private readonly IMembershipTable _table;
    private readonly ISiloProber _prober;
    private readonly IMembershipNotifier _notifier;
    private readonly ClusteringOptions _clustering;
    private readonly string _clusterId;
    private readonly int _slotCount;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly CancellationTokenSource _stopping = new();
    private readonly SingleFlight _refresh;
    private readonly SingleFlight _heartbeat;
    private readonly SingleFlight _cleanup;
    private readonly Lock _gate = new();
    private readonly Lock _publishing = new();
    private readonly Dictionary<string, PeerWatch> _watched = new(StringComparer.Ordinal);
    private readonly List<ITimer> _timers = [];
    private MembershipEntry? _self;
    private MembershipSnapshot? _current;
    private long _publishedVersion = -1;
    private DateTimeOffset? _heartbeatHealthySince;
    private volatile bool _joined;
    private volatile bool _leaving;
    private int _fenced;
    private int _stopped;

    public MembershipService(
        IMembershipTable table,
        ISiloProber prober,
        IMembershipNotifier notifier,
        IOptions<SiloOptions> options,
        TimeProvider time,
        ILogger<MembershipService> logger)
    {
        _table = table;
        _prober = prober;
        _notifier = notifier;
        _clustering = options.Value.Clustering;
        _clusterId = options.Value.ClusterId;
        _slotCount = options.Value.SlotCount;
        _time = time;
        _logger = logger;
        _refresh = new SingleFlight(RefreshAsync, _stopping.Token);
        _heartbeat = new SingleFlight(HeartbeatAsync, _stopping.Token);
        _cleanup = new SingleFlight(new DefunctSiloCleanup(table, _clustering, time, logger).RunAsync, _stopping.Token);
    }

    /// <inheritdoc />
    public MembershipEntry? Self => Volatile.Read(ref _self);

    /// <inheritdoc />
    public MembershipSnapshot? Current => Volatile.Read(ref _current);

    /// <inheritdoc />
    public bool IsFenced => Volatile.Read(ref _fenced) == 1;

    /// <inheritdoc />
    public event Action<MembershipSnapshot>? Changed;

    /// <inheritdoc />
    public event Action? Fenced;

    /// <inheritdoc />
    public async Task JoinAsync(string host, int port, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(host);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _stopped) == 1, this);
        if (Self is not null)
        {
            throw new InvalidOperationException($"This silo already joined cluster '{_clusterId}' as {Self.SiloId}.");
        }

        await RetryTransientAsync<bool>(
            async token =>
            {
                await _table.InitializeAsync(token).ConfigureAwait(false);
                return true;
            },
            cancellationToken).ConfigureAwait(false);
        EnsureSameSlotCount(await RetryTransientAsync(token => _table.ReadAllAsync(token), cancellationToken).ConfigureAwait(false));
        var joining = await RetryTransientAsync(token => InsertSelfAsync(host, port, token), cancellationToken).ConfigureAwait(false);
        Volatile.Write(ref _self, joining);
        await RetryTransientAsync(token => UpdateSelfAsync(static row => row with { Status = SiloStatus.Active }, token), cancellationToken).ConfigureAwait(false);
        Log.Joined(_logger, joining.SiloId, _clusterId);

        var snapshot = await RetryTransientAsync(token => _table.ReadAllAsync(token), cancellationToken).ConfigureAwait(false);
        await DeclareEarlierIncarnationsDeadAsync(snapshot, joining, cancellationToken).ConfigureAwait(false);
        _joined = true;
        Publish(snapshot);
        StartTimers();
    }

    /// <inheritdoc />
    public async Task LeaveAsync(CancellationToken cancellationToken)
    {
        EnsureJoined();
        _leaving = true;
        await UpdateSelfAsync(static row => row with { Status = SiloStatus.ShuttingDown }, cancellationToken).ConfigureAwait(false);
        Log.Leaving(_logger, Self!.SiloId);
    }

    /// <inheritdoc />
    public async Task CompleteLeaveAsync(CancellationToken cancellationToken)
    {
        EnsureJoined();
        _leaving = true;
        await UpdateSelfAsync(static row => row with { Status = SiloStatus.Dead }, cancellationToken).ConfigureAwait(false);
        Log.Left(_logger, Self!.SiloId);
        Stop();
    }

    /// <inheritdoc />
    public void RefreshSoon()
    {
        // Off the caller's thread: the caller is often a connection's I/O thread, and the read may run Changed handlers.
        ThreadPool.UnsafeQueueUserWorkItem(static refresh => refresh.Request(), _refresh, preferLocal: false);
    }

    /// <summary>Stops the timers and cancels work under way; the row stays as it is.</summary>
    public void Dispose() => Stop();

    private void EnsureJoined()
    {
        if (Self is null)
        {
            throw new InvalidOperationException("This silo has not joined its cluster.");
        }
    }

    private async Task<MembershipEntry> InsertSelfAsync(string host, int port, CancellationToken cancellationToken)
    {
        var now = _time.GetUtcNow();
        var generation = now.ToUnixTimeMilliseconds();
        while (true)
        {
            var snapshot = await _table.ReadAllAsync(cancellationToken).ConfigureAwait(false);
            var siloId = SiloIdOf(host, port, generation);
            if (snapshot.Entries.Any(row => row.Entry.SiloId == siloId))
            {
                // Restarted within the same millisecond: the generation must still tell the incarnations apart.
                generation++;
                continue;
            }

            var entry = new MembershipEntry(siloId, host, port, generation, SiloStatus.Joining, _slotCount, now, now, []);
            if (await _table.TryInsertAsync(entry, snapshot.Version, cancellationToken).ConfigureAwait(false))
            {
                AfterWrite(snapshot);
                return entry;
            }
        }
    }

    private void EnsureSameSlotCount(MembershipSnapshot snapshot)
    {
        var other = snapshot.Entries.Select(row => row.Entry).FirstOrDefault(entry => entry.Status != SiloStatus.Dead && entry.SlotCount != _slotCount);
        if (other is not null)
        {
            throw new InvalidOperationException(
                $"This silo's Cubby:SlotCount is {_slotCount}, but silo {other.SiloId} of cluster '{_clusterId}' has Cubby:SlotCount {other.SlotCount}: " +
                "every silo of a cluster must use the same Cubby:SlotCount.");
        }
    }

    private static string SiloIdOf(string host, int port, long generation) =>
        string.Create(CultureInfo.InvariantCulture, $"{host}:{port}@{generation}");

    /// <summary>Changes this silo's row by compare-and-set until it lands, and returns it; a row already Dead is left alone.</summary>
    private async Task<MembershipEntry> UpdateSelfAsync(Func<MembershipEntry, MembershipEntry> change, CancellationToken cancellationToken)
    {
        var siloId = Self!.SiloId;
        while (true)
        {
            var snapshot = await _table.ReadAllAsync(cancellationToken).ConfigureAwait(false);
            var row = Find(snapshot, siloId) ?? throw new InvalidOperationException($"The membership table of cluster '{_clusterId}' no longer has this silo ({siloId}).");
            if (row.Entry.Status == SiloStatus.Dead)
            {
                Volatile.Write(ref _self, row.Entry);
                return row.Entry;
            }

            var changed = change(row.Entry);
            if (await _table.TryUpdateAsync(changed, row.ETag, snapshot.Version, cancellationToken).ConfigureAwait(false))
            {
                Volatile.Write(ref _self, changed);
                AfterWrite(snapshot);
                return changed;
            }
        }
    }

    /// <summary>
    /// Changes a peer's row by compare-and-set, re-reading after a lost race; <paramref name="change"/> decides from the
    /// fresh row each time and returns null when there is nothing to write any more.
    /// </summary>
    private async Task<MembershipEntry?> UpdatePeerAsync(
        string siloId,
        Func<MembershipSnapshot, MembershipEntry, MembershipEntry?> change,
        CancellationToken cancellationToken)
    {
        for (var attempt = 0; attempt < PeerWriteAttempts; attempt++)
        {
            var snapshot = await _table.ReadAllAsync(cancellationToken).ConfigureAwait(false);
            if (Find(snapshot, siloId) is not { } row || change(snapshot, row.Entry) is not { } changed)
            {
                return null;
            }

            if (await _table.TryUpdateAsync(changed, row.ETag, snapshot.Version, cancellationToken).ConfigureAwait(false))
            {
                AfterWrite(snapshot);
                return changed;
            }
        }

        return null;
    }

    /// <summary>Peers read the table now; so does this silo, to raise <see cref="Changed"/> for its own write.</summary>
    private void AfterWrite(MembershipSnapshot before)
    {
        var selfId = Self?.SiloId;
        _notifier.NotifyChanged(before.Entries.Select(row => row.Entry).Where(entry => entry.SiloId != selfId && entry.Status != SiloStatus.Dead));
        RefreshSoon();
    }

    /// <summary>A process restarted on the same endpoint replaces its earlier incarnations: they cannot be alive.</summary>
    private async Task DeclareEarlierIncarnationsDeadAsync(MembershipSnapshot snapshot, MembershipEntry self, CancellationToken cancellationToken)
    {
        var earlier = snapshot.Entries.Select(row => row.Entry)
            .Where(entry => entry.Host == self.Host && entry.Port == self.Port && entry.Generation < self.Generation && entry.Status != SiloStatus.Dead);
        foreach (var entry in earlier)
        {
            await DeclareDeadAsync(entry.SiloId, "an incarnation on the same endpoint replaced it", static (_, _) => true, cancellationToken).ConfigureAwait(false);
        }
    }

    private async Task DeclareDeadAsync(string siloId, string reason, Func<MembershipEntry, DateTimeOffset, bool> stillTrue, CancellationToken cancellationToken)
    {
        try
        {
            var written = await UpdatePeerAsync(
                siloId,
                (_, row) => row.Status != SiloStatus.Dead && stillTrue(row, _time.GetUtcNow()) ? row with { Status = SiloStatus.Dead } : null,
                cancellationToken).ConfigureAwait(false);
            if (written is not null)
            {
                Log.DeclaredDead(_logger, siloId, reason);
            }
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            if (!_stopping.IsCancellationRequested)
            {
                Log.TableWriteFailed(_logger, siloId, exception);
            }
        }
    }

    private void StartTimers()
    {
        lock (_gate)
        {
            if (Volatile.Read(ref _stopped) == 1)
            {
                return;
            }

            _heartbeatHealthySince = _time.GetUtcNow();
            _timers.Add(_time.CreateTimer(static state => ((SingleFlight)state!).Request(), _heartbeat, _clustering.HeartbeatInterval, _clustering.HeartbeatInterval));
            _timers.Add(_time.CreateTimer(static state => ((SingleFlight)state!).Request(), _refresh, _clustering.TableRefreshInterval, _clustering.TableRefreshInterval));
            _timers.Add(_time.CreateTimer(static state => ((MembershipService)state!).ProbePeers(), this, _clustering.ProbeInterval, _clustering.ProbeInterval));
            _timers.Add(_time.CreateTimer(static state => ((SingleFlight)state!).Request(), _cleanup, _clustering.DefunctSiloCleanupPeriod, _clustering.DefunctSiloCleanupPeriod));
        }
    }

    private void Stop()
    {
        if (Interlocked.Exchange(ref _stopped, 1) == 1)
        {
            return;
        }

        lock (_gate)
        {
            foreach (var timer in _timers)
            {
                timer.Dispose();
            }

            _timers.Clear();
        }

        _stopping.Cancel();
    }

    private async Task HeartbeatAsync(CancellationToken cancellationToken)
    {
        var siloId = Self!.SiloId;
        try
        {
            var now = _time.GetUtcNow();
            await _table.UpdateIAmAliveAsync(siloId, now, cancellationToken).ConfigureAwait(false);
            lock (_gate)
            {
                _heartbeatHealthySince ??= now;
            }
        }
        catch (Exception exception) when (exception is not OutOfMemoryException && !cancellationToken.IsCancellationRequested)
        {
            lock (_gate)
            {
                _heartbeatHealthySince = null;
            }

            Log.HeartbeatFailed(_logger, siloId, exception);
        }
    }

    private async Task RefreshAsync(CancellationToken cancellationToken)
    {
        // Subscribers see the table from the join's own read on, with this silo Active in it.
        if (!_joined || Self is not { } known)
        {
            return;
        }

        MembershipSnapshot snapshot;
        try
        {
            snapshot = await _table.ReadAllAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException && !cancellationToken.IsCancellationRequested)
        {
            Log.ReadFailed(_logger, exception);
            return;
        }

        var self = Find(snapshot, known.SiloId)?.Entry;
        if (self is not null)
        {
            Volatile.Write(ref _self, self);
        }

        Publish(snapshot);
        if (self?.Status == SiloStatus.Dead && !_leaving)
        {
            Fence(self.SiloId);
            return;
        }

        await DeclareStaleSilosDeadAsync(snapshot, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Raises <see cref="Changed"/> for a version newer than the last one raised, one call at a time.</summary>
    private void Publish(MembershipSnapshot snapshot)
    {
        lock (_publishing)
        {
            if (snapshot.Version <= _publishedVersion)
            {
                return;
            }

            _publishedVersion = snapshot.Version;
            Volatile.Write(ref _current, snapshot);
            try
            {
                Changed?.Invoke(snapshot);
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                Log.SubscriberFailed(_logger, snapshot.Version, exception);
            }
        }
    }

    private void Fence(string siloId)
    {
        if (Interlocked.Exchange(ref _fenced, 1) == 1)
        {
            return;
        }

        Log.FencedSelf(_logger, siloId);
        Stop();
        Fenced?.Invoke();
    }

    /// <summary>
    /// Any silo may declare a silo whose heartbeat is older than the expiration dead, but only while its own
    /// heartbeats have been landing for that long: after a table outage every row looks stale for a moment.
    /// </summary>
    private async Task DeclareStaleSilosDeadAsync(MembershipSnapshot snapshot, CancellationToken cancellationToken)
    {
        var now = _time.GetUtcNow();
        DateTimeOffset? healthySince;
        lock (_gate)
        {
            healthySince = _heartbeatHealthySince;
        }

        if (healthySince is null || now - healthySince.Value < _clustering.HeartbeatExpiration)
        {
            return;
        }

        var selfId = Self!.SiloId;
        var expiration = _clustering.HeartbeatExpiration;
        var stale = snapshot.Entries.Select(row => row.Entry)
            .Where(entry => entry.SiloId != selfId && entry.Status != SiloStatus.Dead && now - entry.IAmAliveAt > expiration)
            .ToList();
        foreach (var entry in stale)
        {
            await DeclareDeadAsync(
                entry.SiloId,
                $"no heartbeat since {entry.IAmAliveAt:O}",
                (row, at) => at - row.IAmAliveAt > expiration,
                cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Starts a probe of every live peer. Probes of one peer may overlap (one starts each interval, each may take up
    /// to the timeout), so a silo that stops answering is noticed one interval after another.
    /// </summary>
    private void ProbePeers()
    {
        var snapshot = Current;
        var selfId = Self?.SiloId;
        if (snapshot is null || selfId is null || _stopping.IsCancellationRequested)
        {
            return;
        }

        var peers = snapshot.Entries.Select(row => row.Entry).Where(entry => entry.SiloId != selfId && DeathVotes.IsLive(entry.Status)).ToList();
        lock (_gate)
        {
            foreach (var gone in _watched.Keys.Where(id => !peers.Exists(peer => peer.SiloId == id)).ToList())
            {
                _watched.Remove(gone);
            }
        }

        foreach (var peer in peers)
        {
            _ = ProbeAsync(peer);
        }
    }

    private async Task ProbeAsync(MembershipEntry peer)
    {
        bool answered;
        try
        {
            using var timeout = new CancellationTokenSource(_clustering.ProbeTimeout, _time);
            using var linked = CancellationTokenSource.CreateLinkedTokenSource(timeout.Token, _stopping.Token);
            answered = await _prober.ProbeAsync(peer, linked.Token).WaitAsync(linked.Token).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            if (_stopping.IsCancellationRequested)
            {
                return;
            }

            Log.ProbeFailed(_logger, peer.SiloId, exception.Message);
            answered = false;
        }

        if (RecordProbe(peer.SiloId, answered) is { } misses)
        {
            await VoteAsync(peer, misses).ConfigureAwait(false);
        }
    }

    /// <summary>Counts consecutive misses; returns their number when it is time to vote (and no vote is under way).</summary>
    private int? RecordProbe(string siloId, bool answered)
    {
        lock (_gate)
        {
            if (!_watched.TryGetValue(siloId, out var watch))
            {
                watch = new PeerWatch();
                _watched[siloId] = watch;
            }

            if (answered)
            {
                watch.ConsecutiveMisses = 0;
                return null;
            }

            watch.ConsecutiveMisses++;
            if (watch.ConsecutiveMisses < _clustering.MissedProbesLimit || watch.Voting)
            {
                return null;
            }

            watch.Voting = true;
            return watch.ConsecutiveMisses;
        }
    }

    private async Task VoteAsync(MembershipEntry peer, int misses)
    {
        var selfId = Self!.SiloId;
        try
        {
            var written = await UpdatePeerAsync(
                peer.SiloId,
                (snapshot, row) => DeathVotes.Cast(snapshot, row, selfId, _time.GetUtcNow(), _clustering),
                _stopping.Token).ConfigureAwait(false);
            if (written is not null)
            {
                Log.Voted(_logger, peer.SiloId, misses, written.Status == SiloStatus.Dead);
            }
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            if (!_stopping.IsCancellationRequested)
            {
                Log.TableWriteFailed(_logger, peer.SiloId, exception);
            }
        }
        finally
        {
            lock (_gate)
            {
                if (_watched.TryGetValue(peer.SiloId, out var watch))
                {
                    watch.Voting = false;
                }
            }
        }
    }

    private static VersionedEntry? Find(MembershipSnapshot snapshot, string siloId) =>
        snapshot.Entries.FirstOrDefault(row => row.Entry.SiloId == siloId);

    /// <summary>Retries an operation on a table that fails (not one that answers "no"), waiting a refresh interval between tries.</summary>
    private async Task<T> RetryTransientAsync<T>(Func<CancellationToken, Task<T>> operation, CancellationToken cancellationToken)
    {
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                return await operation(cancellationToken).ConfigureAwait(false);
            }
            catch (Exception exception) when (attempt < JoinAttempts && IsTransient(exception, cancellationToken))
            {
                Log.JoinRetry(_logger, _clusterId, attempt, exception);
            }

            await Task.Delay(_clustering.TableRefreshInterval, _time, cancellationToken).ConfigureAwait(false);
        }
    }

    // A cancelled join is an answer, not a hiccup; a bad argument is a bug.
    private static bool IsTransient(Exception exception, CancellationToken cancellationToken) =>
        exception is not (OutOfMemoryException or ArgumentException) && !cancellationToken.IsCancellationRequested;

    /// <summary>What this silo knows of one peer's probes.</summary>
    private sealed class PeerWatch
    {
        public int ConsecutiveMisses { get; set; }

        public bool Voting { get; set; }
    }

    private static partial class Log
    {
        [LoggerMessage(1, LogLevel.Information, "Joined the membership of cluster {ClusterId} as {SiloId}")]
        public static partial void Joined(ILogger logger, string siloId, string clusterId);

        [LoggerMessage(2, LogLevel.Information, "{SiloId} is leaving its cluster")]
        public static partial void Leaving(ILogger logger, string siloId);

        [LoggerMessage(3, LogLevel.Information, "{SiloId} left its cluster")]
        public static partial void Left(ILogger logger, string siloId);

        [LoggerMessage(4, LogLevel.Warning, "Declared {SiloId} dead: {Reason}")]
        public static partial void DeclaredDead(ILogger logger, string siloId, string reason);

        [LoggerMessage(5, LogLevel.Warning, "Voted {SiloId} dead after {Misses} missed probes; declared dead: {Dead}")]
        public static partial void Voted(ILogger logger, string siloId, int misses, bool dead);

        [LoggerMessage(6, LogLevel.Debug, "Probe of {SiloId} failed: {Reason}")]
        public static partial void ProbeFailed(ILogger logger, string siloId, string reason);

        [LoggerMessage(7, LogLevel.Warning, "Could not write the heartbeat of {SiloId}; retrying at the next one")]
        public static partial void HeartbeatFailed(ILogger logger, string siloId, Exception exception);

        [LoggerMessage(8, LogLevel.Warning, "Could not read the membership table; retrying at the next refresh")]
        public static partial void ReadFailed(ILogger logger, Exception exception);

        [LoggerMessage(9, LogLevel.Warning, "Could not update the membership row of {SiloId}; retrying later")]
        public static partial void TableWriteFailed(ILogger logger, string siloId, Exception exception);

        [LoggerMessage(10, LogLevel.Error, "The cluster declared this silo ({SiloId}) dead: it stops serving")]
        public static partial void FencedSelf(ILogger logger, string siloId);

        [LoggerMessage(11, LogLevel.Error, "A membership subscriber failed on version {Version}")]
        public static partial void SubscriberFailed(ILogger logger, long version, Exception exception);

        [LoggerMessage(12, LogLevel.Warning, "Joining cluster {ClusterId}: the membership table failed (attempt {Attempt}); retrying")]
        public static partial void JoinRetry(ILogger logger, string clusterId, int attempt, Exception exception);
    }
}
