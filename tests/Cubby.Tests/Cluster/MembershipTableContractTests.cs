using Cubby.Silo.Cluster.Membership;

namespace Cubby.Tests.Cluster;

/// <summary>What every <see cref="IMembershipTable"/> must do; run against each implementation.</summary>
public abstract class MembershipTableContractTests : IAsyncLifetime
{
    private static readonly DateTimeOffset T0 = new(2026, 11, 22, 10, 0, 0, TimeSpan.Zero);
    private readonly List<IMembershipTable> _tables = [];

    /// <summary>A table for <paramref name="clusterId"/>; tables with the same id share their rows where the implementation can.</summary>
    private protected abstract IMembershipTable CreateTableFor(string clusterId);

    public Task InitializeAsync() => Task.CompletedTask;

    public async Task DisposeAsync()
    {
        foreach (var table in _tables)
        {
            await table.DeleteClusterAsync(CancellationToken.None);
            if (table is IAsyncDisposable disposable)
            {
                await disposable.DisposeAsync();
            }
        }
    }

    private static string NewClusterId() => $"test-{Guid.NewGuid():N}";

    private IMembershipTable CreateTable(string? clusterId = null)
    {
        var table = CreateTableFor(clusterId ?? NewClusterId());
        _tables.Add(table);
        return table;
    }

    private async Task<IMembershipTable> InitializedTableAsync(string? clusterId = null)
    {
        var table = CreateTable(clusterId);
        await table.InitializeAsync(CancellationToken.None);
        return table;
    }

    private static MembershipEntry Entry(string siloId, int port = 6390, SiloStatus status = SiloStatus.Joining, params Suspicion[] suspicions) =>
        new(siloId, "10.0.0.1", port, Generation: 1_700_000_000_000 + port, status, SlotCount: 1024,
            StartedAt: T0, IAmAliveAt: T0.AddSeconds(1), suspicions);

    private static async Task<VersionedEntry> RowAsync(IMembershipTable table, string siloId) =>
        Assert.Single((await table.ReadAllAsync(CancellationToken.None)).Entries, row => row.Entry.SiloId == siloId);

    [Fact]
    public async Task Deleting_defunct_rows_takes_only_silos_dead_before_the_time_and_leaves_the_version()
    {
        var table = await InitializedTableAsync();
        Assert.True(await table.TryInsertAsync(Entry("long-dead", 1, SiloStatus.Dead), 0, CancellationToken.None));
        Assert.True(await table.TryInsertAsync(Entry("just-dead", 2, SiloStatus.Dead) with { IAmAliveAt = T0.AddHours(1) }, 1, CancellationToken.None));
        Assert.True(await table.TryInsertAsync(Entry("quiet-but-active", 3, SiloStatus.Active), 2, CancellationToken.None));

        Assert.Equal(1, await table.DeleteDefunctAsync(T0.AddMinutes(30), CancellationToken.None));
        Assert.Equal(0, await table.DeleteDefunctAsync(T0.AddMinutes(30), CancellationToken.None));

        var snapshot = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(3, snapshot.Version);
        Assert.Equal(["just-dead", "quiet-but-active"], snapshot.Entries.Select(row => row.Entry.SiloId).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task A_new_table_is_empty_at_version_zero()
    {
        var table = await InitializedTableAsync();

        var snapshot = await table.ReadAllAsync(CancellationToken.None);

        Assert.Equal(0, snapshot.Version);
        Assert.Empty(snapshot.Entries);
    }

    [Fact]
    public async Task Before_InitializeAsync_reads_throw_and_writes_fail()
    {
        var table = CreateTable();

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => table.ReadAllAsync(CancellationToken.None));
        Assert.Contains("InitializeAsync", error.Message, StringComparison.Ordinal);
        Assert.False(await table.TryInsertAsync(Entry("a"), 0, CancellationToken.None));
    }

    [Fact]
    public async Task InitializeAsync_again_keeps_rows_and_version()
    {
        var table = await InitializedTableAsync();
        Assert.True(await table.TryInsertAsync(Entry("a"), 0, CancellationToken.None));

        await table.InitializeAsync(CancellationToken.None);
        await table.InitializeAsync(CancellationToken.None);

        var snapshot = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(1, snapshot.Version);
        Assert.Equal(Entry("a"), Assert.Single(snapshot.Entries).Entry);
    }

    [Fact]
    public async Task An_inserted_entry_reads_back_field_for_field()
    {
        var table = await InitializedTableAsync();
        var entry = new MembershipEntry("silo-1", "cache-3.internal", 7001, 1_763_805_600_123, SiloStatus.Active, 4096,
            T0, T0.AddMinutes(3), [new Suspicion("silo-2", T0.AddSeconds(10)), new Suspicion("silo-3", T0.AddSeconds(11))]);

        Assert.True(await table.TryInsertAsync(entry, 0, CancellationToken.None));

        var snapshot = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(1, snapshot.Version);
        var row = Assert.Single(snapshot.Entries);
        Assert.Equal(entry, row.Entry);
        Assert.Equal(["silo-2", "silo-3"], row.Entry.Suspicions.Select(suspicion => suspicion.BySiloId));
        Assert.False(string.IsNullOrEmpty(row.ETag));
    }

    [Fact]
    public async Task Rows_come_back_ordered_by_silo_id()
    {
        var table = await InitializedTableAsync();
        string[] ids = ["b", "a", "c", "B"];
        for (var index = 0; index < ids.Length; index++)
        {
            Assert.True(await table.TryInsertAsync(Entry(ids[index], 7000 + index), index, CancellationToken.None));
        }

        var snapshot = await table.ReadAllAsync(CancellationToken.None);

        Assert.Equal(["B", "a", "b", "c"], snapshot.Entries.Select(row => row.Entry.SiloId));
    }

    [Fact]
    public async Task Every_successful_change_bumps_the_version_by_exactly_one_and_changes_only_its_rows_etag()
    {
        var table = await InitializedTableAsync();

        Assert.True(await table.TryInsertAsync(Entry("a", 7001), 0, CancellationToken.None));
        Assert.True(await table.TryInsertAsync(Entry("b", 7002), 1, CancellationToken.None));
        var before = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(2, before.Version);
        var a = before.Entries.Single(row => row.Entry.SiloId == "a");
        var b = before.Entries.Single(row => row.Entry.SiloId == "b");

        var activated = a.Entry with { Status = SiloStatus.Active };
        Assert.True(await table.TryUpdateAsync(activated, a.ETag, 2, CancellationToken.None));

        var after = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(3, after.Version);
        var newA = after.Entries.Single(row => row.Entry.SiloId == "a");
        Assert.Equal(activated, newA.Entry);
        Assert.NotEqual(a.ETag, newA.ETag);
        Assert.Equal(b, after.Entries.Single(row => row.Entry.SiloId == "b"));

        Assert.True(await table.TryUpdateAsync(activated with { Status = SiloStatus.ShuttingDown }, newA.ETag, 3, CancellationToken.None));
        Assert.Equal(4, (await table.ReadAllAsync(CancellationToken.None)).Version);
    }

    [Fact]
    public async Task An_update_with_a_stale_etag_fails_and_changes_nothing()
    {
        var table = await InitializedTableAsync();
        Assert.True(await table.TryInsertAsync(Entry("a"), 0, CancellationToken.None));
        var first = await RowAsync(table, "a");
        Assert.True(await table.TryUpdateAsync(first.Entry with { Status = SiloStatus.Active }, first.ETag, 1, CancellationToken.None));
        var current = await table.ReadAllAsync(CancellationToken.None);

        // The version is current, the etag is not.
        Assert.False(await table.TryUpdateAsync(first.Entry with { Status = SiloStatus.Dead }, first.ETag, current.Version, CancellationToken.None));
        Assert.False(await table.TryUpdateAsync(first.Entry with { Status = SiloStatus.Dead }, "not-an-etag", current.Version, CancellationToken.None));

        var after = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(current.Version, after.Version);
        Assert.Equal(SiloStatus.Active, Assert.Single(after.Entries).Entry.Status);
    }

    [Fact]
    public async Task A_write_with_a_stale_expected_version_fails_and_changes_nothing()
    {
        var table = await InitializedTableAsync();
        Assert.True(await table.TryInsertAsync(Entry("a"), 0, CancellationToken.None));
        var a = await RowAsync(table, "a");

        Assert.False(await table.TryInsertAsync(Entry("b"), 0, CancellationToken.None));
        Assert.False(await table.TryInsertAsync(Entry("b"), 2, CancellationToken.None));
        Assert.False(await table.TryUpdateAsync(a.Entry with { Status = SiloStatus.Dead }, a.ETag, 0, CancellationToken.None));
        Assert.False(await table.TryUpdateAsync(a.Entry with { Status = SiloStatus.Dead }, a.ETag, 5, CancellationToken.None));

        var snapshot = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(1, snapshot.Version);
        Assert.Equal(a, Assert.Single(snapshot.Entries));
    }

    [Fact]
    public async Task Inserting_an_existing_silo_id_fails_and_keeps_the_first_row()
    {
        var table = await InitializedTableAsync();
        Assert.True(await table.TryInsertAsync(Entry("a", 7001), 0, CancellationToken.None));

        Assert.False(await table.TryInsertAsync(Entry("a", 7002), 1, CancellationToken.None));

        var snapshot = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(1, snapshot.Version);
        Assert.Equal(7001, Assert.Single(snapshot.Entries).Entry.Port);
    }

    [Fact]
    public async Task Updating_a_silo_that_is_not_in_the_table_fails()
    {
        var table = await InitializedTableAsync();
        Assert.True(await table.TryInsertAsync(Entry("a"), 0, CancellationToken.None));
        var a = await RowAsync(table, "a");

        Assert.False(await table.TryUpdateAsync(Entry("b"), a.ETag, 1, CancellationToken.None));

        var snapshot = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(1, snapshot.Version);
        Assert.Single(snapshot.Entries);
    }

    [Fact]
    public async Task A_heartbeat_changes_the_alive_time_only_not_the_version_or_the_etag()
    {
        var table = await InitializedTableAsync();
        Assert.True(await table.TryInsertAsync(Entry("a"), 0, CancellationToken.None));
        var before = await RowAsync(table, "a");

        await table.UpdateIAmAliveAsync("a", T0.AddMinutes(5), CancellationToken.None);

        var snapshot = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(1, snapshot.Version);
        var after = Assert.Single(snapshot.Entries);
        Assert.Equal(before.ETag, after.ETag);
        Assert.Equal(before.Entry with { IAmAliveAt = T0.AddMinutes(5) }, after.Entry);

        // A writer that read before the heartbeat still succeeds: heartbeats never make a write fail.
        Assert.True(await table.TryUpdateAsync(before.Entry with { Status = SiloStatus.Active }, before.ETag, 1, CancellationToken.None));
    }

    [Fact]
    public async Task The_alive_time_never_moves_back_by_heartbeat_or_update()
    {
        var table = await InitializedTableAsync();
        Assert.True(await table.TryInsertAsync(Entry("a"), 0, CancellationToken.None));
        var stale = await RowAsync(table, "a");
        await table.UpdateIAmAliveAsync("a", T0.AddMinutes(5), CancellationToken.None);

        await table.UpdateIAmAliveAsync("a", T0.AddMinutes(4), CancellationToken.None);
        Assert.Equal(T0.AddMinutes(5), (await RowAsync(table, "a")).Entry.IAmAliveAt);

        // An update built from a read before the heartbeat carries the older alive time; the newer one stays.
        Assert.True(await table.TryUpdateAsync(stale.Entry with { Status = SiloStatus.Active }, stale.ETag, 1, CancellationToken.None));
        var row = (await RowAsync(table, "a")).Entry;
        Assert.Equal(SiloStatus.Active, row.Status);
        Assert.Equal(T0.AddMinutes(5), row.IAmAliveAt);

        // A later alive time in an update is taken.
        var current = await RowAsync(table, "a");
        Assert.True(await table.TryUpdateAsync(current.Entry with { IAmAliveAt = T0.AddMinutes(9) }, current.ETag, 2, CancellationToken.None));
        Assert.Equal(T0.AddMinutes(9), (await RowAsync(table, "a")).Entry.IAmAliveAt);
    }

    [Fact]
    public async Task A_heartbeat_for_a_silo_not_in_the_table_throws()
    {
        var table = await InitializedTableAsync();

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => table.UpdateIAmAliveAsync("ghost", T0, CancellationToken.None));

        Assert.Contains("ghost", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Clusters_with_different_ids_do_not_see_each_other()
    {
        var blue = await InitializedTableAsync();
        var green = await InitializedTableAsync();

        Assert.True(await blue.TryInsertAsync(Entry("a", 7001), 0, CancellationToken.None));
        Assert.True(await blue.TryInsertAsync(Entry("b", 7002), 1, CancellationToken.None));
        Assert.True(await green.TryInsertAsync(Entry("a", 8001), 0, CancellationToken.None));

        var blueSnapshot = await blue.ReadAllAsync(CancellationToken.None);
        var greenSnapshot = await green.ReadAllAsync(CancellationToken.None);
        Assert.Equal(2, blueSnapshot.Version);
        Assert.Equal(1, greenSnapshot.Version);
        Assert.Equal(8001, Assert.Single(greenSnapshot.Entries).Entry.Port);

        await blue.DeleteClusterAsync(CancellationToken.None);
        await green.UpdateIAmAliveAsync("a", T0.AddHours(1), CancellationToken.None);
        Assert.Equal(1, (await green.ReadAllAsync(CancellationToken.None)).Version);
        await Assert.ThrowsAsync<InvalidOperationException>(() => blue.UpdateIAmAliveAsync("a", T0.AddHours(1), CancellationToken.None));
    }

    [Fact]
    public async Task DeleteClusterAsync_removes_rows_and_version_and_InitializeAsync_starts_afresh()
    {
        var table = await InitializedTableAsync();
        Assert.True(await table.TryInsertAsync(Entry("a"), 0, CancellationToken.None));
        Assert.True(await table.TryInsertAsync(Entry("b"), 1, CancellationToken.None));

        await table.DeleteClusterAsync(CancellationToken.None);

        await Assert.ThrowsAsync<InvalidOperationException>(() => table.ReadAllAsync(CancellationToken.None));
        Assert.False(await table.TryInsertAsync(Entry("c"), 2, CancellationToken.None));
        await table.InitializeAsync(CancellationToken.None);
        var snapshot = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(0, snapshot.Version);
        Assert.Empty(snapshot.Entries);
    }

    [Fact]
    public async Task Times_are_kept_in_utc_to_the_microsecond()
    {
        var table = await InitializedTableAsync();
        var local = new DateTimeOffset(2026, 11, 22, 12, 0, 0, TimeSpan.FromHours(2)).AddTicks(1_234_567);
        var entry = Entry("a") with { StartedAt = local, IAmAliveAt = local.AddTicks(9), Suspicions = [new Suspicion("b", local.AddTicks(19))] };

        Assert.True(await table.TryInsertAsync(entry, 0, CancellationToken.None));

        var stored = (await RowAsync(table, "a")).Entry;
        var truncated = new DateTimeOffset(2026, 11, 22, 10, 0, 0, TimeSpan.Zero).AddTicks(1_234_560);
        Assert.Equal(truncated.UtcTicks, stored.StartedAt.UtcTicks);
        Assert.Equal(truncated.AddTicks(10).UtcTicks, stored.IAmAliveAt.UtcTicks);
        Assert.Equal(truncated.AddTicks(20).UtcTicks, Assert.Single(stored.Suspicions).At.UtcTicks);
        Assert.Equal(TimeSpan.Zero, stored.StartedAt.Offset);
    }

    [Fact]
    public async Task Ids_with_quotes_and_non_ascii_text_are_stored_as_given()
    {
        const string ClusterId = "o'brien\"; DROP TABLE cubby_membership; --";
        var table = await InitializedTableAsync($"{ClusterId}-{Guid.NewGuid():N}");
        var entry = Entry("silo 'ünï' \"1\"", suspicions: [new Suspicion("peer \\ \"2\" ✓", T0)]);

        Assert.True(await table.TryInsertAsync(entry, 0, CancellationToken.None));

        Assert.Equal(entry, (await RowAsync(table, entry.SiloId)).Entry);
    }

    [Fact]
    public async Task The_table_keeps_its_own_copy_of_the_suspicions()
    {
        var table = await InitializedTableAsync();
        List<Suspicion> suspicions = [new("b", T0)];
        Assert.True(await table.TryInsertAsync(Entry("a") with { Suspicions = suspicions }, 0, CancellationToken.None));

        suspicions.Add(new Suspicion("c", T0));

        Assert.Single((await RowAsync(table, "a")).Entry.Suspicions);
    }

    public static TheoryData<string> InvalidEntries => ["empty silo id", "empty host", "negative port", "port over 65535", "zero slots", "unknown status", "null suspicion"];

    [Theory]
    [MemberData(nameof(InvalidEntries))]
    public async Task Invalid_entries_are_rejected_before_anything_is_written(string problem)
    {
        var table = await InitializedTableAsync();
        var entry = problem switch
        {
            "empty silo id" => Entry(""),
            "empty host" => Entry("a") with { Host = "" },
            "negative port" => Entry("a", port: -1),
            "port over 65535" => Entry("a", port: 65536),
            "zero slots" => Entry("a") with { SlotCount = 0 },
            "unknown status" => Entry("a", status: (SiloStatus)9),
            "null suspicion" => Entry("a") with { Suspicions = [null!] },
            _ => throw new ArgumentOutOfRangeException(nameof(problem)),
        };

        await Assert.ThrowsAnyAsync<ArgumentException>(() => table.TryInsertAsync(entry, 0, CancellationToken.None));

        Assert.Equal(0, (await table.ReadAllAsync(CancellationToken.None)).Version);
    }

    [Fact]
    public async Task A_cancelled_token_cancels()
    {
        var table = await InitializedTableAsync();
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => table.ReadAllAsync(cancelled.Token));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => table.TryInsertAsync(Entry("a"), 0, cancelled.Token));

        Assert.Empty((await table.ReadAllAsync(CancellationToken.None)).Entries);
    }

    [Fact]
    public async Task Concurrent_inserts_of_different_silos_all_land_each_bumping_the_version_once()
    {
        const int Silos = 8;
        var table = await InitializedTableAsync();
        var attempts = 0;

        await Task.WhenAll(Enumerable.Range(0, Silos).Select(index => Task.Run(async () =>
        {
            while (true)
            {
                Interlocked.Increment(ref attempts);
                var snapshot = await table.ReadAllAsync(CancellationToken.None);
                if (await table.TryInsertAsync(Entry($"silo-{index}", 7000 + index), snapshot.Version, CancellationToken.None))
                {
                    return;
                }
            }
        })));

        var final = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(Silos, final.Version);
        Assert.Equal(Enumerable.Range(0, Silos).Select(index => $"silo-{index}"), final.Entries.Select(row => row.Entry.SiloId));
        Assert.True(attempts >= Silos);
    }

    [Fact]
    public async Task Eight_writers_of_25_compare_and_set_increments_each_lose_none_and_bump_the_version_once_per_write()
    {
        const int Writers = 8;
        const int Increments = 25;
        var table = await InitializedTableAsync();
        Assert.True(await table.TryInsertAsync(Entry("counter", port: 1), 0, CancellationToken.None));
        var successes = 0;

        await Task.WhenAll(Enumerable.Range(0, Writers).Select(writer => Task.Run(async () =>
        {
            // Each writer registers a row of its own too, racing with the others' increments.
            while (!await table.TryInsertAsync(Entry($"writer-{writer}", 100 + writer), (await table.ReadAllAsync(CancellationToken.None)).Version, CancellationToken.None))
            {
            }

            Interlocked.Increment(ref successes);
            for (var item = 0; item < Increments; item++)
            {
                while (true)
                {
                    var snapshot = await table.ReadAllAsync(CancellationToken.None);
                    var row = snapshot.Entries.Single(row => row.Entry.SiloId == "counter");
                    var next = row.Entry with
                    {
                        Port = row.Entry.Port + 1,
                        Suspicions = [.. row.Entry.Suspicions, new Suspicion($"writer-{writer}", T0.AddSeconds(item))],
                    };
                    if (await table.TryUpdateAsync(next, row.ETag, snapshot.Version, CancellationToken.None))
                    {
                        Interlocked.Increment(ref successes);
                        break;
                    }
                }
            }
        })));

        var final = await table.ReadAllAsync(CancellationToken.None);
        var counter = final.Entries.Single(row => row.Entry.SiloId == "counter").Entry;
        Assert.Equal(Writers + (Writers * Increments), successes);
        Assert.Equal(1 + successes, final.Version);
        Assert.Equal(1 + (Writers * Increments), counter.Port);
        Assert.Equal(Writers * Increments, counter.Suspicions.Count);
        Assert.Equal(Writers + 1, final.Entries.Count);
        for (var writer = 0; writer < Writers; writer++)
        {
            var own = counter.Suspicions.Where(suspicion => suspicion.BySiloId == $"writer-{writer}").Select(suspicion => suspicion.At);
            Assert.Equal(Enumerable.Range(0, Increments).Select(item => T0.AddSeconds(item)), own);
        }
    }

    [Fact]
    public async Task Concurrent_read_modify_write_loops_lose_no_update()
    {
        const int Writers = 6;
        const int SuspicionsPerWriter = 8;
        var table = await InitializedTableAsync();
        Assert.True(await table.TryInsertAsync(Entry("target"), 0, CancellationToken.None));
        var successes = 0;
        var failures = 0;
        using var writersDone = new CancellationTokenSource();

        // Heartbeats keep landing on the same row meanwhile; they must not disturb the compare-and-set.
        var lastHeartbeat = T0;
        var heartbeats = Task.Run(async () =>
        {
            var beat = 0;
            do
            {
                lastHeartbeat = T0.AddMinutes(1).AddMilliseconds(++beat);
                await table.UpdateIAmAliveAsync("target", lastHeartbeat, CancellationToken.None);
                await Task.Yield();
            }
            while (!writersDone.IsCancellationRequested);
        });

        var writers = Enumerable.Range(0, Writers).Select(writer => Task.Run(async () =>
        {
            for (var item = 0; item < SuspicionsPerWriter; item++)
            {
                var suspicion = new Suspicion($"writer-{writer}", T0.AddSeconds(item));
                while (true)
                {
                    var snapshot = await table.ReadAllAsync(CancellationToken.None);
                    var row = Assert.Single(snapshot.Entries);
                    var changed = row.Entry with { Suspicions = [.. row.Entry.Suspicions, suspicion] };
                    if (await table.TryUpdateAsync(changed, row.ETag, snapshot.Version, CancellationToken.None))
                    {
                        Interlocked.Increment(ref successes);
                        break;
                    }

                    Interlocked.Increment(ref failures);
                }
            }
        })).ToArray();

        try
        {
            await Task.WhenAll(writers);
        }
        finally
        {
            await writersDone.CancelAsync();
            await heartbeats;
        }

        var final = await table.ReadAllAsync(CancellationToken.None);
        var entry = Assert.Single(final.Entries).Entry;
        Assert.Equal(Writers * SuspicionsPerWriter, successes);
        Assert.Equal(1 + successes, final.Version);
        Assert.Equal(Writers * SuspicionsPerWriter, entry.Suspicions.Count);
        for (var writer = 0; writer < Writers; writer++)
        {
            // Each writer's suspicions are all there, in the order it added them.
            var own = entry.Suspicions.Where(suspicion => suspicion.BySiloId == $"writer-{writer}").Select(suspicion => suspicion.At);
            Assert.Equal(Enumerable.Range(0, SuspicionsPerWriter).Select(item => T0.AddSeconds(item)), own);
        }

        Assert.Equal(lastHeartbeat, entry.IAmAliveAt);
    }
}
