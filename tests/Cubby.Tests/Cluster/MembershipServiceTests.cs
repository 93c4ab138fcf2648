using Cubby.Silo.Cluster;
using Cubby.Silo.Cluster.Membership;
using Cubby.Silo.Hosting;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Cluster;

/// <summary>
/// Membership and failure detection on fake time, over an in-memory table and a scripted network. The clock is moved
/// from a thread without xunit's synchronization context, so work started by fake timers runs inline and in order.
/// </summary>
public sealed class MembershipServiceTests : IDisposable
{
    private static readonly TimeSpan Step = TimeSpan.FromMilliseconds(250);

    private readonly FakeTimeProvider _time = new();
    private readonly FlakyMembershipTable _table = new("test");
    private readonly ScriptedProber _prober;
    private readonly RecordingNotifier _notifier = new();
    private readonly List<MembershipService> _silos = [];

    public MembershipServiceTests() => _prober = new ScriptedProber(_time);

    public void Dispose()
    {
        foreach (var silo in _silos)
        {
            silo.Dispose();
        }
    }

    private MembershipService NewSilo(int slotCount = 1024, Action<ClusteringOptions>? configure = null)
    {
        var options = new SiloOptions { ClusterId = "test", SlotCount = slotCount };
        options.Clustering.HeartbeatExpiration = TimeSpan.FromMinutes(1); // Tests of probes must not be won by heartbeats.
        configure?.Invoke(options.Clustering);
        var silo = new MembershipService(_table, _prober, _notifier, Options.Create(options), _time, NullLogger<MembershipService>.Instance);
        _silos.Add(silo);
        return silo;
    }

    private async Task<MembershipService> JoinedSiloAsync(int port, Action<ClusteringOptions>? configure = null)
    {
        var silo = NewSilo(configure: configure);
        await Task.Run(() => silo.JoinAsync("10.0.0.1", port, CancellationToken.None));
        return silo;
    }

    private Task AdvanceAsync(TimeSpan by) => Task.Run(() => _time.Advance(by));

    /// <summary>
    /// Moves the clock in small steps until <paramref name="condition"/> holds, failing past <paramref name="limit"/> of
    /// fake time. Work the clock started (a table read, a callback) runs on real threads, so once the limit is reached
    /// the condition still gets a real-time deadline to come true without the clock moving further.
    /// </summary>
    private async Task AdvanceUntilAsync(Func<bool> condition, TimeSpan limit)
    {
        var moved = TimeSpan.Zero;
        while (!condition() && moved < limit)
        {
            await AdvanceAsync(Step);
            moved += Step;
        }

        await Poll.UntilAsync(condition, what: $"the condition within {limit} of fake time");
    }

    private MembershipEntry Row(string siloId) =>
        _table.Inner.ReadAllAsync(CancellationToken.None).Result.Entries.Single(row => row.Entry.SiloId == siloId).Entry;

    private long TableVersion => _table.Inner.ReadAllAsync(CancellationToken.None).Result.Version;

    [Fact]
    public async Task Join_registers_a_new_generation_Joining_then_Active_and_publishes_the_table()
    {
        var silo = NewSilo();
        var seen = new List<MembershipSnapshot>();
        silo.Changed += seen.Add;
        var generation = _time.GetUtcNow().ToUnixTimeMilliseconds();

        await Task.Run(() => silo.JoinAsync("10.0.0.1", 7001, CancellationToken.None));

        var self = Assert.IsType<MembershipEntry>(silo.Self);
        Assert.Equal($"10.0.0.1:7001@{generation}", self.SiloId);
        Assert.Equal(generation, self.Generation);
        Assert.Equal(SiloStatus.Active, Row(self.SiloId).Status);
        Assert.Equal(2, TableVersion); // Inserted as Joining, then updated to Active.
        var published = Assert.Single(seen);
        Assert.Equal(2, published.Version);
        Assert.Equal(SiloStatus.Active, Assert.Single(published.Entries).Entry.Status);
        Assert.False(silo.IsFenced);
    }

    [Fact]
    public async Task A_restart_on_the_same_endpoint_is_a_new_member_and_its_earlier_incarnation_is_dead()
    {
        var first = await JoinedSiloAsync(7001);
        first.Dispose(); // kill -9: the row stays Active.
        await AdvanceAsync(TimeSpan.FromMilliseconds(5));

        var second = await JoinedSiloAsync(7001);

        Assert.NotEqual(first.Self!.SiloId, second.Self!.SiloId);
        Assert.True(second.Self.Generation > first.Self.Generation);
        Assert.Equal(SiloStatus.Active, Row(second.Self.SiloId).Status);
        Assert.Equal(SiloStatus.Dead, Row(first.Self.SiloId).Status);
    }

    [Fact]
    public async Task The_rows_of_silos_dead_longer_than_the_expiration_are_deleted_and_recent_ones_kept()
    {
        void Expire(ClusteringOptions clustering)
        {
            clustering.DefunctSiloExpiration = TimeSpan.FromMinutes(2);
            clustering.DefunctSiloCleanupPeriod = TimeSpan.FromSeconds(30);
        }

        var first = await JoinedSiloAsync(7001, Expire);
        first.Dispose(); // kill -9
        var second = await JoinedSiloAsync(7001, Expire); // takes the endpoint over and marks the first dead
        var firstId = first.Self!.SiloId;
        Assert.Equal(SiloStatus.Dead, Row(firstId).Status);

        await AdvanceAsync(TimeSpan.FromMinutes(1));
        Assert.Equal(SiloStatus.Dead, Row(firstId).Status);

        await AdvanceUntilAsync(() => _table.Inner.ReadAllAsync(CancellationToken.None).Result.Entries.All(row => row.Entry.SiloId != firstId), TimeSpan.FromMinutes(2));
        Assert.Equal(SiloStatus.Active, Row(second.Self!.SiloId).Status);
    }

    [Fact]
    public async Task Leave_then_complete_leave_go_ShuttingDown_then_Dead_and_stop_the_heartbeat_without_fencing()
    {
        var silo = await JoinedSiloAsync(7001);
        var id = silo.Self!.SiloId;
        var fenced = 0;
        silo.Fenced += () => fenced++;

        await silo.LeaveAsync(CancellationToken.None);
        Assert.Equal(SiloStatus.ShuttingDown, Row(id).Status);
        await AdvanceAsync(TimeSpan.FromSeconds(2));
        Assert.Equal(SiloStatus.ShuttingDown, Row(id).Status);

        await silo.CompleteLeaveAsync(CancellationToken.None);
        Assert.Equal(SiloStatus.Dead, Row(id).Status);
        var lastAlive = Row(id).IAmAliveAt;
        await AdvanceAsync(TimeSpan.FromSeconds(5));

        Assert.Equal(lastAlive, Row(id).IAmAliveAt);
        Assert.False(silo.IsFenced);
        Assert.Equal(0, fenced);
    }

    [Fact]
    public async Task A_silo_with_another_slot_count_is_refused_and_writes_nothing()
    {
        await JoinedSiloAsync(7001);
        var versionBefore = TableVersion;
        var other = NewSilo(slotCount: 2048);

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => Task.Run(() => other.JoinAsync("10.0.0.2", 7002, CancellationToken.None)));

        Assert.Contains("2048", error.Message, StringComparison.Ordinal);
        Assert.Contains("1024", error.Message, StringComparison.Ordinal);
        Assert.Contains("Cubby:SlotCount", error.Message, StringComparison.Ordinal);
        Assert.Equal(versionBefore, TableVersion);
        Assert.Null(other.Self);
    }

    [Fact]
    public async Task A_peer_that_stops_answering_is_voted_dead_by_two_silos_once_each_missed_the_limit()
    {
        var a = await JoinedSiloAsync(7001);
        var b = await JoinedSiloAsync(7002);
        var c = await JoinedSiloAsync(7003);
        var victim = c.Self!.SiloId;
        await AdvanceAsync(TimeSpan.FromSeconds(2)); // Everyone has read everyone.
        c.Dispose();
        _prober.Silence(victim);

        // Probes start every second and time out after two: the third consecutive miss ends five seconds in, at the earliest.
        await AdvanceAsync(TimeSpan.FromSeconds(4.75));
        Assert.Equal(SiloStatus.Active, Row(victim).Status);
        Assert.Empty(Row(victim).Suspicions);

        await AdvanceUntilAsync(() => Row(victim).Status == SiloStatus.Dead, TimeSpan.FromSeconds(3));

        var voters = Row(victim).Suspicions.Select(vote => vote.BySiloId).Distinct().Order(StringComparer.Ordinal);
        Assert.Equal(new[] { a.Self!.SiloId, b.Self!.SiloId }.Order(StringComparer.Ordinal), voters);
        Assert.Equal(SiloStatus.Active, Row(a.Self.SiloId).Status);
        Assert.Equal(SiloStatus.Active, Row(b.Self.SiloId).Status);
        Assert.Contains(b.Self.SiloId, _notifier.Notified); // Peers were told of the writes.
    }

    [Fact]
    public async Task One_vote_is_not_enough_while_another_live_silo_could_vote()
    {
        var a = await JoinedSiloAsync(7001);
        var b = await JoinedSiloAsync(7002);
        var c = await JoinedSiloAsync(7003);
        await AdvanceAsync(TimeSpan.FromSeconds(2));

        // Only a's probes of c fail (b keeps answering a): a votes alone, b sees c alive.
        var table = _table.Inner;
        var snapshot = await table.ReadAllAsync(CancellationToken.None);
        var row = snapshot.Entries.Single(r => r.Entry.SiloId == c.Self!.SiloId);
        var vote = DeathVotes.Cast(snapshot, row.Entry, a.Self!.SiloId, _time.GetUtcNow(), new ClusteringOptions());

        Assert.NotNull(vote);
        Assert.Equal(SiloStatus.Active, vote.Status);
        Assert.Equal(2, DeathVotes.Quorum(snapshot, c.Self!.SiloId, new ClusteringOptions()));
        Assert.True(await table.TryUpdateAsync(vote, row.ETag, snapshot.Version, CancellationToken.None));

        // A second, distinct voter makes it.
        snapshot = await table.ReadAllAsync(CancellationToken.None);
        row = snapshot.Entries.Single(r => r.Entry.SiloId == c.Self.SiloId);
        var second = DeathVotes.Cast(snapshot, row.Entry, b.Self!.SiloId, _time.GetUtcNow(), new ClusteringOptions());
        Assert.Equal(SiloStatus.Dead, second!.Status);

        // A vote older than the expiration no longer counts.
        var expired = DeathVotes.Cast(snapshot, row.Entry, b.Self.SiloId, _time.GetUtcNow().AddMinutes(1), new ClusteringOptions());
        Assert.Equal(SiloStatus.Active, expired!.Status);
        Assert.Equal(b.Self.SiloId, Assert.Single(expired.Suspicions).BySiloId);
    }

    [Fact]
    public async Task With_two_silos_the_survivor_alone_declares_the_other_dead()
    {
        var a = await JoinedSiloAsync(7001);
        var b = await JoinedSiloAsync(7002);
        var victim = b.Self!.SiloId;
        await AdvanceAsync(TimeSpan.FromSeconds(2));
        b.Dispose();
        _prober.Silence(victim);

        await AdvanceUntilAsync(() => Row(victim).Status == SiloStatus.Dead, TimeSpan.FromSeconds(8));

        Assert.Equal(a.Self!.SiloId, Assert.Single(Row(victim).Suspicions).BySiloId);
        Assert.Equal(SiloStatus.Active, Row(a.Self.SiloId).Status);
    }

    [Fact]
    public async Task A_peer_slower_than_the_interval_but_within_the_probe_timeout_is_never_suspected()
    {
        await JoinedSiloAsync(7001);
        var slow = await JoinedSiloAsync(7002);
        var id = slow.Self!.SiloId;
        _prober.AnswerAfter(id, TimeSpan.FromSeconds(1.9)); // The timeout is 2 s.

        await AdvanceAsync(TimeSpan.FromSeconds(30));

        Assert.True(_prober.CallsTo(id) >= 25, $"Only {_prober.CallsTo(id)} probes ran.");
        Assert.Equal(SiloStatus.Active, Row(id).Status);
        Assert.Empty(Row(id).Suspicions);
    }

    [Fact]
    public async Task A_peer_answering_after_the_probe_timeout_counts_as_missing()
    {
        await JoinedSiloAsync(7001);
        var slow = await JoinedSiloAsync(7002);
        var id = slow.Self!.SiloId;
        _prober.AnswerAfter(id, TimeSpan.FromSeconds(2.1));

        await AdvanceUntilAsync(() => Row(id).Status == SiloStatus.Dead, TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task A_silo_whose_heartbeat_is_stale_is_declared_dead_without_votes()
    {
        await JoinedSiloAsync(7001, clustering => clustering.HeartbeatExpiration = TimeSpan.FromSeconds(8));
        var frozen = await JoinedSiloAsync(7002, clustering => clustering.HeartbeatExpiration = TimeSpan.FromSeconds(8));
        var id = frozen.Self!.SiloId;
        frozen.Dispose(); // Its heartbeats stop; probes of it still succeed (a silo whose table writes hang, say).

        await AdvanceAsync(TimeSpan.FromSeconds(7.5));
        Assert.Equal(SiloStatus.Active, Row(id).Status);

        await AdvanceUntilAsync(() => Row(id).Status == SiloStatus.Dead, TimeSpan.FromSeconds(2.5));
        Assert.Empty(Row(id).Suspicions);
    }

    [Fact]
    public async Task A_table_outage_longer_than_the_heartbeat_expiration_kills_nobody_and_the_silos_carry_on()
    {
        var a = await JoinedSiloAsync(7001, clustering => clustering.HeartbeatExpiration = TimeSpan.FromSeconds(8));
        var b = await JoinedSiloAsync(7002, clustering => clustering.HeartbeatExpiration = TimeSpan.FromSeconds(8));
        await AdvanceAsync(TimeSpan.FromSeconds(2));

        _table.Down = true;
        await AdvanceAsync(TimeSpan.FromSeconds(12));
        _table.Down = false;
        await AdvanceAsync(TimeSpan.FromSeconds(5));

        Assert.Equal(SiloStatus.Active, Row(a.Self!.SiloId).Status);
        Assert.Equal(SiloStatus.Active, Row(b.Self!.SiloId).Status);
        Assert.True(_time.GetUtcNow() - Row(a.Self.SiloId).IAmAliveAt <= TimeSpan.FromSeconds(1));
        Assert.False(a.IsFenced || b.IsFenced);
    }

    [Fact]
    public async Task A_silo_that_reads_its_own_row_Dead_fences_itself_once_and_stops()
    {
        var silo = await JoinedSiloAsync(7001);
        var id = silo.Self!.SiloId;
        var fenced = 0;
        silo.Fenced += () => Interlocked.Increment(ref fenced);
        var snapshot = await _table.Inner.ReadAllAsync(CancellationToken.None);
        var row = snapshot.Entries.Single();
        Assert.True(await _table.Inner.TryUpdateAsync(row.Entry with { Status = SiloStatus.Dead }, row.ETag, snapshot.Version, CancellationToken.None));

        await AdvanceUntilAsync(() => silo.IsFenced, TimeSpan.FromSeconds(2));
        var lastAlive = Row(id).IAmAliveAt;
        await AdvanceAsync(TimeSpan.FromSeconds(5));

        Assert.Equal(1, Volatile.Read(ref fenced));
        Assert.Equal(lastAlive, Row(id).IAmAliveAt); // No heartbeat after fencing.
        Assert.Equal(SiloStatus.Dead, silo.Self!.Status);
    }

    [Fact]
    public async Task Changed_is_raised_one_call_at_a_time_once_per_newer_version_in_order()
    {
        var silo = await JoinedSiloAsync(7001);
        var versions = new List<long>();
        var inside = 0;
        var overlapped = false;
        silo.Changed += snapshot =>
        {
            overlapped |= Interlocked.Increment(ref inside) > 1;
            versions.Add(snapshot.Version);
            Thread.Yield();
            Interlocked.Decrement(ref inside);
        };

        // Writes by "other silos" while refreshes are asked for from many threads and the timer.
        for (var round = 0; round < 20; round++)
        {
            var snapshot = await _table.Inner.ReadAllAsync(CancellationToken.None);
            var entry = new MembershipEntry($"peer-{round}", "10.0.0.9", 8000 + round, round, SiloStatus.Joining, 1024, _time.GetUtcNow(), _time.GetUtcNow(), []);
            Assert.True(await _table.Inner.TryInsertAsync(entry, snapshot.Version, CancellationToken.None));
            await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(silo.RefreshSoon)).Append(AdvanceAsync(TimeSpan.FromMilliseconds(500))));
        }

        var final = TableVersion;
        await AdvanceUntilAsync(() => silo.Current?.Version == final, TimeSpan.FromSeconds(2));

        Assert.False(overlapped);
        Assert.Equal(final, versions[^1]);
        Assert.Equal(versions.Order(), versions);
        Assert.Equal(versions.Count, versions.Distinct().Count());
    }
}
