using System.Diagnostics;
using System.Text;
using Cubby.Client;
using Cubby.Sharding;
using Cubby.Silo.Cluster.Membership;
using Cubby.Tests.Infrastructure;
using Cubby.Tests.Silo;
using Microsoft.Extensions.DependencyInjection;
using Xunit.Abstractions;

namespace Cubby.Tests.Cluster;

/// <summary>
/// Three silo executables on a real PostgreSQL: 100k keys survive a rolling restart under load with no failed call; a
/// silo killed with SIGKILL is routed around within seconds, keeps the others' keys, is marked dead in the table, and
/// rejoins taking slots back with their data. Plain redis-cli reads keys through silos that do not own them.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class PostgresClusterTests(PostgresServer server, ITestOutputHelper output)
{
    private const int KeyCount = 100_000;

    [Fact]
    public async Task Three_silo_processes_survive_a_rolling_restart_and_a_kill()
    {
        var clusterId = $"process-{Guid.NewGuid():N}";
        using var cluster = new ProcessCluster(server.ConnectionString, clusterId, 3);
        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(3, TimeSpan.FromSeconds(60));

        await using var services = ClientFor(cluster);
        var client = services.GetRequiredService<ICubbyClient>();
        var keys = Enumerable.Range(0, KeyCount).Select(i => $"bulk:{i}").ToArray();
        await WriteAllAsync(client, keys);

        // Plain redis-cli (no -c) on one silo reads keys that live on the others.
        var view = await cluster.ViewAsync(0);
        var shardMap = new ShardMap(view.SlotCount);
        var foreign = keys.First(key => view.OwnerOf(shardMap.SlotOf(Encoding.UTF8.GetBytes(key))).Port != cluster.RespPort(0));
        Assert.Equal(foreign, (await RedisTools.CliOutputAsync(cluster.RespPort(0), "GET", foreign)).Trim());

        // Rolling restart under load: every silo in turn gets SIGTERM and is started again on its ports.
        await using (var load = new ClusterLoad(client, workers: 16, keySpace: 2_000, prefix: "rolling"))
        {
            var clock = Stopwatch.StartNew();
            for (var i = 0; i < cluster.Count; i++)
            {
                Assert.Equal(0, await cluster.StopAsync(i));
                await cluster.StartAsync(i);
                await cluster.WaitSettledAsync(3, TimeSpan.FromSeconds(60));
            }

            await load.StopAsync();
            output.WriteLine($"rolling restart: {load.Calls} calls in {clock.Elapsed.TotalSeconds:0.0} s = {load.Calls / clock.Elapsed.TotalSeconds:0} ops/s, longest call {load.LongestCall.TotalMilliseconds:0} ms, failures {load.Failures.Count}");
            Assert.True(load.Failures.Count == 0, $"failed calls: {string.Join("; ", load.Failures.Take(10))}{cluster.DescribeAll()}");
            Assert.Empty(await load.FindLostAsync(client));
        }

        Assert.Empty(await FindMissingAsync(client, keys));

        // kill -9 under load: calls succeed again once the cluster has declared the silo dead.
        view = await cluster.ViewAsync(0);
        var victim = 1;
        var victimId = view.Silos.Single(s => s.Port == cluster.RespPort(victim)).Id;
        var victimKeys = keys.Where(key => view.OwnerOf(shardMap.SlotOf(Encoding.UTF8.GetBytes(key))).Id == victimId).ToArray();
        var survivingKeys = keys.Except(victimKeys).ToArray();
        await using (var load = new ClusterLoad(client, workers: 8, keySpace: 2_000, prefix: "crash"))
        {
            await Cubby.Tests.Client.Poll.UntilAsync(() => load.Calls > 1_000, TimeSpan.FromSeconds(30), "load before the kill");
            var killed = Stopwatch.StartNew();
            cluster.Kill(victim);
            var recovered = await WaitUntilKeysAnswerAsync(client, victimKeys.Take(50).ToArray(), TimeSpan.FromSeconds(30));
            output.WriteLine($"kill -9: calls for the dead silo's slots succeed again after {recovered.TotalSeconds:0.0} s");
            Assert.True(recovered < TimeSpan.FromSeconds(15), $"calls succeeded again only after {recovered}{cluster.DescribeAll()}");
            await load.StopAsync();
            output.WriteLine($"during the kill: {load.Calls} calls, {load.Failures.Count} failed (until the silo was declared dead), longest {load.LongestCall.TotalMilliseconds:0} ms; detection took {killed.Elapsed.TotalSeconds:0.0} s so far");
        }

        Assert.Empty(await FindMissingAsync(client, survivingKeys));
        var table = new PostgresMembershipTable(clusterId, server.ConnectionString);
        var rows = await table.ReadAllAsync(CancellationToken.None);
        Assert.Equal(SiloStatus.Dead, rows.Entries.Single(row => row.Entry.SiloId == victimId).Entry.Status);

        // Started again, it rejoins as a new generation and takes slots back with their data.
        await cluster.StartAsync(victim);
        await cluster.WaitSettledAsync(3, TimeSpan.FromSeconds(60));
        var rejoined = await cluster.ClusterInfoAsync(victim);
        output.WriteLine($"rejoined: {rejoined["cubby_slots_held"]} slots held, {rejoined["cubby_slots_received"]} received");
        Assert.NotEqual("0", rejoined["cubby_slots_held"]);
        Assert.NotEqual("0", rejoined["cubby_slots_received"]);
        await using (var monitor = await RespTestClient.ConnectAsync(cluster[victim].RespEndPoint))
        {
            var local = await monitor.CallAsync("INFO", "keyspace");
            Assert.Contains("db0:keys=", local.AsString(), StringComparison.Ordinal);
        }

        Assert.Empty(await FindMissingAsync(client, survivingKeys));
    }

    private static ServiceProvider ClientFor(ProcessCluster cluster)
    {
        var services = new ServiceCollection();
        services.AddLogging();
        services.AddCubbyClient(options =>
        {
            foreach (var endpoint in cluster.Endpoints)
            {
                options.Endpoints.Add(endpoint);
            }
        });
        return services.BuildServiceProvider();
    }

    private static async Task WriteAllAsync(ICubbyClient client, string[] keys)
    {
        const int Parallel = 64;
        await Task.WhenAll(Enumerable.Range(0, Parallel).Select(async lane =>
        {
            for (var i = lane; i < keys.Length; i += Parallel)
            {
                await client.PutAsync(keys[i], Encoding.UTF8.GetBytes(keys[i]));
            }
        }));
    }

    private static async Task<List<string>> FindMissingAsync(ICubbyClient client, string[] keys)
    {
        const int Parallel = 64;
        var missing = new System.Collections.Concurrent.ConcurrentBag<string>();
        await Task.WhenAll(Enumerable.Range(0, Parallel).Select(async lane =>
        {
            for (var i = lane; i < keys.Length; i += Parallel)
            {
                var value = await client.GetAsync(keys[i]);
                if (value is null || Encoding.UTF8.GetString(value) != keys[i])
                {
                    missing.Add(keys[i]);
                }
            }
        }));
        return missing.Take(20).ToList();
    }

    /// <summary>Time until every key answers a write and a read without error.</summary>
    private static async Task<TimeSpan> WaitUntilKeysAnswerAsync(ICubbyClient client, string[] keys, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < timeout)
        {
            try
            {
                foreach (var key in keys)
                {
                    await client.PutAsync(key, Encoding.UTF8.GetBytes("after"));
                }

                return clock.Elapsed;
            }
            catch (Exception exception) when (exception is CubbyException or TimeoutException)
            {
                await Task.Delay(100);
            }
        }

        return clock.Elapsed;
    }
}
