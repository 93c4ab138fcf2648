using System.Diagnostics;
using Cubby.Sharding;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>
/// A silo process with <c>Cubby:Persistence:Directory</c> stopped with SIGTERM and started again on the same folder: its
/// entries come back with their expiry, on one silo and on a two-silo cluster stopped one silo after the other; what
/// SAVE wrote survives a kill; a damaged file is logged, naming it, and loads
/// nothing of its shard; a full disk costs the shards whose files did not fit, never the silo.
/// </summary>
public sealed class PersistenceProcessTests : IDisposable
{
    private const int Keys = 400;
    private static readonly TimeSpan StopTimeout = TimeSpan.FromSeconds(60);
    private static readonly ShardMap Shards = new(ShardMap.DefaultSlotCount);

    private readonly DirectoryInfo _folder = Directory.CreateTempSubdirectory("cubby-persistence-");

    public void Dispose() => _folder.Delete(recursive: true);

    [Fact]
    public async Task A_silo_started_again_on_its_folder_serves_every_entry_it_held_with_its_expiry()
    {
        var shortLived = Stopwatch.StartNew();
        using (var first = await StartAsync())
        {
            await WriteAsync(first);
            await using (var writer = await RespTestClient.ConnectAsync(first.RespEndPoint))
            {
                shortLived.Restart();
                RespAssert.Ok(await writer.CallAsync("SET", "short", "lived", "PX", "1000"));
            }

            Assert.Equal(0, await first.StopAsync(StopTimeout));
        }

        Assert.NotEmpty(_folder.GetFiles("shard-*.snapshot"));
        using var second = await StartAsync();
        await using var client = await RespTestClient.ConnectAsync(second.RespEndPoint);
        for (var i = 0; i < Keys; i++)
        {
            RespAssert.Bulk($"value:{i}", await client.CallAsync("GET", $"key:{i}"));
        }

        // It expired while the silo was down (a stop and a start take longer than its second).
        Assert.True(shortLived.Elapsed > TimeSpan.FromSeconds(1), $"the restart took only {shortLived.Elapsed}");
        RespAssert.Null(await client.CallAsync("GET", "short"));

        // Written with an hour to live, a minute or so before: still most of it, never more.
        var ttl = (await client.CallAsync("TTL", "key:1")).Integer;
        Assert.InRange(ttl, 3000, 3600);
        RespAssert.Integer(-1, await client.CallAsync("TTL", "key:0"));
        Assert.Equal(["field", "value"], RespAssert.Strings(await client.CallAsync("HGETALL", "hash")));
        Assert.Contains("Loaded ", second.Output);

        var persistence = (await client.CallAsync("INFO", "persistence")).AsString()!;
        Assert.Contains("loading:0\r\n", persistence);
        Assert.Contains("aof_enabled:1\r\n", persistence);
        Assert.Contains("aof_last_write_status:ok\r\n", persistence);
        Assert.Contains($"rdb_last_load_keys_loaded:{Keys + 1}\r\n", persistence);
        Assert.Contains($"cubby_persistence_directory:{_folder.FullName}\r\n", persistence);
        Assert.Contains("cubby_files_unreadable:0\r\n", persistence);
        Assert.Matches(@"cubby_shards_loaded:[1-9]\d*\r\n", persistence);

        // The changes file the second silo began holds nothing yet; the snapshots written from the first one's do.
        using var http = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{second.HttpPort}") };
        var metrics = await Cubby.Tests.Metrics.PrometheusText.ReadAsync(http);
        Assert.True(Cubby.Tests.Metrics.PrometheusText.Value(metrics, "cubby_persistence_written_bytes_total") > 0, metrics);
        Assert.Equal(0, Cubby.Tests.Metrics.PrometheusText.Value(metrics, "cubby_persistence_failures_total"));
        Assert.Contains("# TYPE cubby_persistence_flushes_total counter\n", metrics, StringComparison.Ordinal);
        Assert.Contains("# TYPE cubby_persistence_flush_time_seconds_total counter\n", metrics, StringComparison.Ordinal);
        Assert.Contains("# TYPE cubby_persistence_load_time_seconds gauge\n", metrics, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_damaged_snapshot_is_logged_by_name_and_its_shard_is_rebuilt_from_the_changes_file()
    {
        using (var first = await StartAsync())
        {
            await WriteAsync(first);
            Assert.Equal(0, await first.StopAsync(StopTimeout));
        }

        var damaged = Damage($"shard-{Shards.SlotOf("key:7"):D4}.snapshot");
        using var second = await StartAsync();
        await using var client = await RespTestClient.ConnectAsync(second.RespEndPoint);
        await AssertEveryKeyAsync(client);
        Assert.Contains($"The file {damaged} was not loaded whole: a record at byte", second.Output);
        Assert.Contains("cubby_files_unreadable:1\r\n", (await client.CallAsync("INFO", "persistence")).AsString());
    }

    [Fact]
    public async Task A_second_snapshot_file_of_one_shard_is_logged_by_name_and_the_shard_loads_once()
    {
        using (var first = await StartAsync())
        {
            await WriteAsync(first);
            Assert.Equal(0, await first.StopAsync(StopTimeout));
        }

        // The same shard under a name without its leading zeros: the snapshots are read side by side, and one wins.
        var slot = Shards.SlotOf("key:7");
        var copy = Path.Combine(_folder.FullName, $"shard-{slot}.snapshot");
        File.Copy(Path.Combine(_folder.FullName, $"shard-{slot:D4}.snapshot"), copy);
        using var second = await StartAsync();
        await using var client = await RespTestClient.ConnectAsync(second.RespEndPoint);
        await AssertEveryKeyAsync(client);
        Assert.Contains($"another file holds shard {slot} already", second.Output);
        Assert.Contains("cubby_files_unreadable:1\r\n", (await client.CallAsync("INFO", "persistence")).AsString());
    }

    [Fact]
    public async Task A_damaged_snapshot_with_no_changes_file_left_loads_nothing_of_its_shard_while_the_others_load()
    {
        using (var first = await StartAsync())
        {
            await WriteAsync(first);
            Assert.Equal(0, await first.StopAsync(StopTimeout));
        }

        // Started again and stopped with nothing changed: the changes file read is gone, the new one holds no entries.
        using (var again = await StartAsync())
        {
            Assert.Equal(0, await again.StopAsync(StopTimeout));
        }

        var damagedSlot = Shards.SlotOf("key:7");
        var damaged = Damage($"shard-{damagedSlot:D4}.snapshot");
        using var second = await StartAsync();
        await using var client = await RespTestClient.ConnectAsync(second.RespEndPoint);
        for (var i = 0; i < Keys; i++)
        {
            var reply = await client.CallAsync("GET", $"key:{i}");
            if (Shards.SlotOf($"key:{i}") == damagedSlot)
            {
                RespAssert.Null(reply);
            }
            else
            {
                RespAssert.Bulk($"value:{i}", reply);
            }
        }

        Assert.Contains($"The file {damaged} was not loaded whole: a record at byte", second.Output);
    }

    [Fact]
    public async Task With_a_flush_interval_of_zero_every_acknowledged_write_and_delete_survives_a_kill()
    {
        using (var first = await StartAsync("--Cubby:Persistence:FlushInterval", "00:00:00"))
        {
            await WriteAsync(first);
            await using (var client = await RespTestClient.ConnectAsync(first.RespEndPoint))
            {
                RespAssert.Integer(1, await client.CallAsync("DEL", "key:0"));
                RespAssert.Ok(await client.CallAsync("SET", "key:2", "changed"));
            }

            first.Kill();
        }

        using var second = await StartAsync();
        await using var reader = await RespTestClient.ConnectAsync(second.RespEndPoint);
        RespAssert.Null(await reader.CallAsync("GET", "key:0"));
        RespAssert.Bulk("changed", await reader.CallAsync("GET", "key:2"));
        for (var i = 3; i < Keys; i++)
        {
            RespAssert.Bulk($"value:{i}", await reader.CallAsync("GET", $"key:{i}"));
        }

        Assert.InRange((await reader.CallAsync("TTL", "key:1")).Integer, 3000, 3600);
        Assert.Equal(["field", "value"], RespAssert.Strings(await reader.CallAsync("HGETALL", "hash")));
    }

    [Fact]
    public async Task Changes_taken_after_a_restart_apply_to_the_snapshots_that_restart_wrote_through_a_second_kill()
    {
        // The second silo's shards begin from the snapshots its start wrote, and do not write them again: the changes
        // they take go on from those files when the silo starts a third time.
        using (var first = await StartAsync("--Cubby:Persistence:FlushInterval", "00:00:00"))
        {
            await WriteAsync(first);
            first.Kill();
        }

        using (var second = await StartAsync("--Cubby:Persistence:FlushInterval", "00:00:00"))
        {
            await using var client = await RespTestClient.ConnectAsync(second.RespEndPoint);
            RespAssert.Bulk("value:2", await client.CallAsync("GET", "key:2"));
            RespAssert.Integer(1, await client.CallAsync("DEL", "key:0"));
            RespAssert.Ok(await client.CallAsync("SET", "key:2", "changed"));
            RespAssert.Ok(await client.CallAsync("SET", "new", "after the restart"));
            second.Kill();
        }

        using var third = await StartAsync();
        await using var reader = await RespTestClient.ConnectAsync(third.RespEndPoint);
        RespAssert.Null(await reader.CallAsync("GET", "key:0"));
        RespAssert.Bulk("changed", await reader.CallAsync("GET", "key:2"));
        RespAssert.Bulk("after the restart", await reader.CallAsync("GET", "new"));
        for (var i = 3; i < Keys; i++)
        {
            RespAssert.Bulk($"value:{i}", await reader.CallAsync("GET", $"key:{i}"));
        }

        Assert.InRange((await reader.CallAsync("TTL", "key:1")).Integer, 3000, 3600);
        Assert.Contains("cubby_files_unreadable:0\r\n", (await reader.CallAsync("INFO", "persistence")).AsString()!);
    }

    [Fact]
    public async Task A_kill_under_writers_loses_nothing_acknowledged_a_flush_interval_before_it()
    {
        var flushInterval = TimeSpan.FromSeconds(1);
        var acknowledged = new List<(int Index, long At)>();
        long killedAt;
        using (var first = await StartAsync("--Cubby:Persistence:FlushInterval", flushInterval.ToString()))
        {
            await using var client = await RespTestClient.ConnectAsync(first.RespEndPoint);
            using var writing = new CancellationTokenSource();
            var writer = Task.Run(async () =>
            {
                // Each write sets one key and removes the one written ten before, so the file holds removals too.
                for (var i = 0; !writing.IsCancellationRequested; i++)
                {
                    RespAssert.Ok(await client.CallAsync("SET", $"seq:{i}", $"value:{i}"));
                    if (i >= 10)
                    {
                        RespAssert.Integer(1, await client.CallAsync("DEL", $"seq:{i - 10}"));
                    }

                    lock (acknowledged)
                    {
                        acknowledged.Add((i, System.Diagnostics.Stopwatch.GetTimestamp()));
                    }
                }
            });

            // Writes for a few flush intervals, then the silo dies mid-stream.
            await Poll.UntilAsync(
                () =>
                {
                    lock (acknowledged)
                    {
                        return Task.FromResult(acknowledged.Count > 0 && System.Diagnostics.Stopwatch.GetElapsedTime(acknowledged[0].At) > flushInterval * 3);
                    }
                },
                TestDeadlines.Call,
                "writes for three flush intervals");
            killedAt = System.Diagnostics.Stopwatch.GetTimestamp();
            first.Kill();
            writing.Cancel();
            await Assert.ThrowsAnyAsync<Exception>(() => writer);
        }

        var safe = acknowledged.Where(write => System.Diagnostics.Stopwatch.GetElapsedTime(write.At, killedAt) > flushInterval).Select(static write => write.Index).ToList();
        Assert.True(safe.Count > 100, $"only {safe.Count} writes were acknowledged a flush interval before the kill");
        using var second = await StartAsync();
        await using var reader = await RespTestClient.ConnectAsync(second.RespEndPoint);
        var last = safe[^1];
        for (var i = Math.Max(0, last - 30); i <= last; i++)
        {
            // Set by write i, removed by write i + 10: gone when that was safe too, else present, or gone later.
            var reply = await reader.CallAsync("GET", $"seq:{i}");
            if (i + 10 <= last)
            {
                RespAssert.Null(reply);
            }
            else
            {
                // Removed by a write that may have run unanswered when the silo died.
                Assert.True(reply.IsNull ? i + 10 <= acknowledged[^1].Index + 1 : reply.AsString() == $"value:{i}", $"seq:{i} read {reply}");
            }
        }

        // The ten keys last written, or eleven when the silo died between a write's set and its removal.
        Assert.InRange((await reader.CallAsync("DBSIZE")).Integer, 10, 11);
    }

    [Fact]
    public async Task A_changes_file_past_its_size_begins_again_with_the_shards_written_whole_and_a_kill_then_loses_nothing()
    {
        using (var first = await StartAsync("--Cubby:Persistence:FlushInterval", "00:00:00", "--Cubby:Persistence:ChangesFileMinBytes", "65536"))
        {
            await using var client = await RespTestClient.ConnectAsync(first.RespEndPoint);
            for (var i = 0; i < Keys; i++)
            {
                RespAssert.Ok(await client.CallAsync("SET", $"key:{i}", new string('v', 500)));
            }

            // 400 writes of half a kilobyte: past 64 KiB, so a new file begins, and the first goes.
            await Poll.UntilAsync(
                () => Task.FromResult(first.Output.Contains("Began the changes file", StringComparison.Ordinal) && _folder.GetFiles("changes-*.log").Length == 1),
                TestDeadlines.Call,
                "a new changes file, and the first one deleted");
            Assert.DoesNotContain(_folder.GetFiles("changes-*.log"), static file => file.Name == "changes-000001.log");
            for (var i = 0; i < Keys; i += 2)
            {
                RespAssert.Ok(await client.CallAsync("SET", $"key:{i}", $"value:{i}"));
            }

            first.Kill();
        }

        using var second = await StartAsync();
        await using var reader = await RespTestClient.ConnectAsync(second.RespEndPoint);
        for (var i = 0; i < Keys; i++)
        {
            RespAssert.Bulk(i % 2 == 0 ? $"value:{i}" : new string('v', 500), await reader.CallAsync("GET", $"key:{i}"));
        }
    }

    [Fact]
    public async Task A_two_silo_cluster_stopped_one_silo_after_the_other_and_started_again_serves_every_entry()
    {
        var (primaryFolder, joinerFolder) = (Path.Combine(_folder.FullName, "primary"), Path.Combine(_folder.FullName, "joiner"));
        using (var primary = await SiloProcess.StartAsync("--Cubby:Persistence:Directory", primaryFolder, "--Cubby:Clustering:Mode", "Development"))
        {
            using (var joiner = await JoinAsync(primary, joinerFolder))
            {
                await WriteAsync(joiner);

                // The joiner's shards move to the primary as it leaves; the primary, stopping last, writes them all.
                Assert.Equal(0, await joiner.StopAsync(StopTimeout));
            }

            Assert.Equal(0, await primary.StopAsync(StopTimeout));
        }

        // The primary wrote every shard: started alone, it serves them all.
        using var primaryAgain = await SiloProcess.StartAsync("--Cubby:Persistence:Directory", primaryFolder, "--Cubby:Clustering:Mode", "Development");
        await using (var alone = await RespTestClient.ConnectAsync(primaryAgain.RespEndPoint))
        {
            await AssertEveryKeyAsync(alone);
        }

        // The joiner kept the copies it left with, at their older epochs: its own shards come home from the primary with
        // what the primary holds, and none of its copies stands for a shard.
        Assert.NotEmpty(Directory.GetFiles(joinerFolder, "shard-*.snapshot"));
        using var joinerAgain = await JoinAsync(primaryAgain, joinerFolder);
        await using var client = await RespTestClient.ConnectAsync(joinerAgain.RespEndPoint);
        RespAssert.Ok(await client.CallAsync("SET", "key:0", "changed"));
        RespAssert.Bulk("changed", await client.CallAsync("GET", "key:0"));
        for (var i = 1; i < Keys; i++)
        {
            RespAssert.Bulk($"value:{i}", await client.CallAsync("GET", $"key:{i}"));
        }

        Assert.Equal(["field", "value"], RespAssert.Strings(await client.CallAsync("HGETALL", "hash")));
    }

    private static Task<SiloProcess> JoinAsync(SiloProcess primary, string folder) =>
        SiloProcess.StartAsync("--Cubby:Persistence:Directory", folder, "--Cubby:Clustering:Mode", "Development", "--Cubby:Clustering:PrimaryEndpoint", $"127.0.0.1:{primary.SiloPort}");

    [Fact]
    public async Task What_SAVE_and_BGSAVE_wrote_survives_a_kill_that_loses_the_changes_not_flushed_and_without_a_folder_they_say_why_not()
    {
        // An hour between flushes: after the kill only what SAVE and BGSAVE wrote is left.
        using (var first = await StartAsync("--Cubby:Persistence:FlushInterval", "01:00:00"))
        {
            await using var client = await RespTestClient.ConnectAsync(first.RespEndPoint);
            var started = (await client.CallAsync("LASTSAVE")).Integer;
            Assert.InRange(started, DateTimeOffset.UtcNow.ToUnixTimeSeconds() - 120, DateTimeOffset.UtcNow.ToUnixTimeSeconds());
            await WriteAsync(first);
            Assert.Matches(@"rdb_changes_since_last_save:[1-9]\d*\r\n", (await client.CallAsync("INFO", "persistence")).AsString());
            RespAssert.Ok(await client.CallAsync("SAVE"));
            Assert.Contains("rdb_changes_since_last_save:0\r\n", (await client.CallAsync("INFO", "persistence")).AsString());

            RespAssert.Ok(await client.CallAsync("SET", "after:save", "by bgsave"));
            RespAssert.SimpleString("Background saving started", await client.CallAsync("BGSAVE"));
            await Poll.UntilAsync(
                async () => (await client.CallAsync("INFO", "persistence")).AsString()!.Contains("rdb_bgsave_in_progress:0\r\n", StringComparison.Ordinal),
                TestDeadlines.Call,
                "the BGSAVE to end");
            var persistence = (await client.CallAsync("INFO", "persistence")).AsString()!;
            Assert.Contains("rdb_last_bgsave_status:ok\r\n", persistence);
            Assert.Contains("rdb_changes_since_last_save:0\r\n", persistence);
            Assert.InRange((await client.CallAsync("LASTSAVE")).Integer, started, DateTimeOffset.UtcNow.ToUnixTimeSeconds());
            RespAssert.Error("ERR syntax error", await client.CallAsync("BGSAVE", "NOW"));

            RespAssert.Ok(await client.CallAsync("SET", "after:bgsave", "not flushed"));
            first.Kill();
        }

        using (var second = await StartAsync())
        {
            await using var client = await RespTestClient.ConnectAsync(second.RespEndPoint);
            await AssertEveryKeyAsync(client);
            RespAssert.Bulk("by bgsave", await client.CallAsync("GET", "after:save"));
            RespAssert.Null(await client.CallAsync("GET", "after:bgsave"));
        }

        using var without = await SiloProcess.StartAsync();
        await using var plain = await RespTestClient.ConnectAsync(without.RespEndPoint);
        RespAssert.Error("ERR 1024 of 1024 shards could not be saved: a silo keeps no Cubby:Persistence:Directory", await plain.CallAsync("SAVE"));
        RespAssert.Error("ERR this silo keeps no Cubby:Persistence:Directory, so there is nowhere to save to", await plain.CallAsync("BGSAVE"));
    }

    [Fact]
    public async Task A_full_disk_costs_the_shards_that_do_not_fit_and_never_the_silo()
    {
        // A 64 KiB file system: room for a few dozen of the 300-odd shards' files.
        await RunAsync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", _folder.FullName]);
        try
        {
            using (var first = await StartAsync())
            {
                await using (var client = await RespTestClient.ConnectAsync(first.RespEndPoint))
                {
                    for (var i = 0; i < Keys; i++)
                    {
                        RespAssert.Ok(await client.CallAsync("SET", $"key:{i}", new string('v', 1000)));
                    }
                }

                await using (var info = await RespTestClient.ConnectAsync(first.RespEndPoint))
                {
                    Assert.Contains("cubby_shards_not_saved:0\r\n", (await info.CallAsync("INFO", "persistence")).AsString());

                    // The changes file filled the disk first: it stops taking changes, and says so.
                    await Poll.UntilAsync(
                        async () => (await info.CallAsync("INFO", "persistence")).AsString()!.Contains("aof_last_write_status:err\r\n", StringComparison.Ordinal),
                        TestDeadlines.Call,
                        "INFO persistence to report the changes file's failed write");
                }

                Assert.Equal(0, await first.StopAsync(StopTimeout));
                Assert.Contains($"could not be written to {_folder.FullName} (Cubby:Persistence:Directory)", first.Output);
                Assert.Contains($"The changes file {_folder.FullName}/changes-000001.log (Cubby:Persistence:Directory) could not be written", first.Output);
            }

            Assert.Empty(_folder.GetFiles("*.writing"));
            using var second = await StartAsync();
            await using var reader = await RespTestClient.ConnectAsync(second.RespEndPoint);
            var found = 0;
            for (var i = 0; i < Keys; i++)
            {
                var reply = await reader.CallAsync("GET", $"key:{i}");
                Assert.True(reply.IsNull || reply.AsString() == new string('v', 1000), $"key:{i} read {reply}");
                found += reply.IsNull ? 0 : 1;
            }

            Assert.InRange(found, 1, Keys - 1);
        }
        finally
        {
            await RunAsync("umount", [_folder.FullName]);
        }
    }

    private static async Task RunAsync(string command, string[] arguments)
    {
        var (exitCode, output, errors) = await Cubby.Load.ExternalProcess.RunAsync(command, arguments, TimeSpan.FromSeconds(30));
        Assert.True(exitCode == 0, $"{command} {string.Join(' ', arguments)} failed ({exitCode}): {output}{errors}");
    }

    /// <summary>Flips a byte in the middle of the file named <paramref name="name"/> in the folder; returns its path.</summary>
    private string Damage(string name)
    {
        var path = Path.Combine(_folder.FullName, name);
        var bytes = File.ReadAllBytes(path);
        bytes[bytes.Length / 2] ^= 0xFF;
        File.WriteAllBytes(path, bytes);
        return path;
    }

    private static async Task AssertEveryKeyAsync(RespTestClient client)
    {
        for (var i = 0; i < Keys; i++)
        {
            RespAssert.Bulk($"value:{i}", await client.CallAsync("GET", $"key:{i}"));
        }
    }

    private Task<SiloProcess> StartAsync(params string[] arguments) => SiloProcess.StartAsync(["--Cubby:Persistence:Directory", _folder.FullName, .. arguments]);

    /// <summary>Keys without expiry (even) and with an hour to live (odd), and a hash.</summary>
    private static async Task WriteAsync(SiloProcess silo)
    {
        await using var client = await RespTestClient.ConnectAsync(silo.RespEndPoint);
        for (var i = 0; i < Keys; i++)
        {
            RespAssert.Ok(i % 2 == 0 ? await client.CallAsync("SET", $"key:{i}", $"value:{i}") : await client.CallAsync("SET", $"key:{i}", $"value:{i}", "EX", "3600"));
        }

        RespAssert.Integer(1, await client.CallAsync("HSET", "hash", "field", "value"));
    }
}
