using System.Diagnostics;
using System.Globalization;
using Cubby.Sharding;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Orleans;

/// <summary>
/// Three silo processes on PostgreSQL, each with a persistence folder of its own: stopped one after another and started
/// again, they serve every entry with its time to live, and stopped all at once too; killed all at once under a writer,
/// nothing acknowledged a flush interval before the kills is lost.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class PersistenceClusterTests(PostgresServer server) : OwnSchemaTests(server, "cubby_persisted"), IDisposable
{
    private const int SlotCount = 64;
    private const int Keys = 300;
    private static readonly TimeSpan Settle = TimeSpan.FromSeconds(90);

    private readonly DirectoryInfo _folder = Directory.CreateTempSubdirectory("cubby-cluster-persistence-");

    public void Dispose() => _folder.Delete(recursive: true);

    [Fact]
    public async Task Three_silos_stopped_one_after_another_and_started_again_serve_every_entry_with_its_time_to_live()
    {
        using var cluster = Cluster();
        await StartWithKeysAsync(cluster);

        // Each silo's shards move to the others as it stops; the last writes them all.
        for (var i = 0; i < cluster.Count; i++)
        {
            Assert.Equal(0, await cluster.StopAsync(i));
        }

        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(3, Settle);
        await using var reader = await RespTestClient.ConnectAsync(cluster[1].RespEndPoint);
        for (var i = 0; i < Keys; i++)
        {
            RespAssert.Bulk($"value:{i}", await reader.CallAsync("GET", $"key:{i}"));
        }

        RespAssert.Integer(-1, await reader.CallAsync("TTL", "key:0"));
        Assert.InRange((await reader.CallAsync("TTL", "key:1")).Integer, 3000, 3600);
        RespAssert.Integer(Keys, await reader.CallAsync("DBSIZE"));
    }

    [Fact]
    public async Task Three_silos_stopped_at_once_and_started_again_serve_every_entry()
    {
        using var cluster = Cluster();
        await StartWithKeysAsync(cluster);

        // One signal to all: each sees the others as homes while they stop too.
        Assert.All(await Task.WhenAll(Enumerable.Range(0, cluster.Count).Select(cluster.StopAsync)), static code => Assert.Equal(0, code));
        var files = string.Join('\n', _folder.GetFiles("*", SearchOption.AllDirectories).Select(static file => $"{file.FullName} ({file.Length} bytes)"));
        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(3, Settle);
        await using var reader = await RespTestClient.ConnectAsync(cluster[1].RespEndPoint);
        var missing = new List<int>();
        for (var i = 0; i < Keys; i++)
        {
            if ((await reader.CallAsync("GET", $"key:{i}")) is { IsNull: false } found)
            {
                Assert.Equal($"value:{i}", found.AsString());
            }
            else
            {
                missing.Add(i);
            }
        }

        var shards = new ShardMap(SlotCount);
        Assert.True(missing.Count == 0, $"{missing.Count} keys missing, of shards {string.Join(", ", missing.Select(i => shards.SlotOf($"key:{i}")).Distinct())}; the folders held:\n{files}{cluster.DescribeAll()}");
    }

    [Fact]
    public async Task Three_silos_killed_under_a_writer_lose_nothing_acknowledged_a_flush_interval_before()
    {
        var flushInterval = TimeSpan.FromSeconds(1);
        using var cluster = Cluster("--Cubby:Persistence:FlushInterval", flushInterval.ToString());
        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(3, Settle);
        var acknowledged = new List<(int Index, long At)>();
        long killedAt;
        await using (var client = await RespTestClient.ConnectAsync(cluster[0].RespEndPoint))
        {
            using var writing = new CancellationTokenSource();
            var writer = Task.Run(async () =>
            {
                for (var i = 0; !writing.IsCancellationRequested; i++)
                {
                    RespAssert.Ok(await client.CallAsync("SET", $"seq:{i}", $"value:{i}"));
                    lock (acknowledged)
                    {
                        acknowledged.Add((i, Stopwatch.GetTimestamp()));
                    }
                }
            });

            await Poll.UntilAsync(
                () =>
                {
                    lock (acknowledged)
                    {
                        return Task.FromResult(acknowledged.Count > 0 && Stopwatch.GetElapsedTime(acknowledged[0].At) > flushInterval * 3);
                    }
                },
                TestDeadlines.Call,
                "writes for three flush intervals");
            killedAt = Stopwatch.GetTimestamp();
            for (var i = 0; i < cluster.Count; i++)
            {
                cluster.Kill(i);
            }

            writing.Cancel();
            await Assert.ThrowsAnyAsync<Exception>(() => writer);
        }

        int[] safe;
        lock (acknowledged)
        {
            safe = [.. acknowledged.Where(write => Stopwatch.GetElapsedTime(write.At, killedAt) > flushInterval).Select(static write => write.Index)];
        }

        Assert.True(safe.Length > 50, $"only {safe.Length} writes were acknowledged a flush interval before the kills");
        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(3, Settle);
        await using var reader = await RespTestClient.ConnectAsync(cluster[2].RespEndPoint);
        foreach (var i in safe)
        {
            RespAssert.Bulk($"value:{i}", await reader.CallAsync("GET", $"seq:{i}"));
        }
    }

    /// <summary>Starts the cluster and writes the keys through its first silo: without expiry (even) and with an hour to live (odd).</summary>
    private static async Task StartWithKeysAsync(ProcessCluster cluster)
    {
        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(3, Settle);
        await using var client = await RespTestClient.ConnectAsync(cluster[0].RespEndPoint);
        for (var i = 0; i < Keys; i++)
        {
            RespAssert.Ok(i % 2 == 0 ? await client.CallAsync("SET", $"key:{i}", $"value:{i}") : await client.CallAsync("SET", $"key:{i}", $"value:{i}", "EX", "3600"));
        }
    }

    private ProcessCluster Cluster(params string[] arguments) =>
        new(ConnectionString, $"persisted-{Guid.NewGuid():N}", 3, SlotCount, arguments)
        {
            OwnArguments = index => ["--Cubby:Persistence:Directory", Path.Combine(_folder.FullName, index.ToString(CultureInfo.InvariantCulture))],
        };
}
