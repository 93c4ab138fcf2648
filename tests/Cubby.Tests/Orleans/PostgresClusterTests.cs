using System.Diagnostics;
using System.Globalization;
using System.Text;
using Cubby.Client;
using Cubby.Sharding;
using Cubby.Tests.Infrastructure;
using Cubby.Tests.Silo;
using Microsoft.Extensions.DependencyInjection;
using Npgsql;
using Xunit.Abstractions;

namespace Cubby.Tests.Orleans;

/// <summary>
/// Three silo executables on Orleans' ADO.NET clustering over a real PostgreSQL: 100k keys survive a rolling restart
/// (SIGTERM, start again) under load with no failed call; a silo then killed with SIGKILL is routed around within 15 s,
/// its shards resuming with their entries from their replicas (<c>Cubby:Replicas</c> is 1 by default), is marked dead
/// in Orleans' membership table, and rejoins taking its shards back with their data. Plain redis-cli reads keys through silos that do not hold them.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class PostgresClusterTests(PostgresServer server, ITestOutputHelper output) : OwnSchemaTests(server, "cubby_cluster")
{
    private const int KeyCount = 100_000;
    private const int SlotCount = 256;
    private const int OrleansDead = 6;

    [Fact]
    public async Task Three_silo_processes_survive_a_rolling_restart_and_a_kill()
    {
        var clusterId = $"process-{Guid.NewGuid():N}";
        using var cluster = new ProcessCluster(ConnectionString, clusterId, 3, SlotCount);
        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(3, TimeSpan.FromSeconds(90));

        await using var services = ClusterKeys.ClientFor(cluster);
        var client = services.GetRequiredService<ICubbyClient>();
        var keys = Enumerable.Range(0, KeyCount).Select(i => $"bulk:{i}").ToArray();
        await ClusterKeys.WriteAllAsync(client, keys);

        // Plain redis-cli (no -c) on one silo reads keys whose shards are on the others.
        var owners = await ClusterKeys.OwnersAsync(cluster, 0);
        var shardMap = new ShardMap(SlotCount);
        var foreign = keys.First(key => owners[shardMap.SlotOf(Encoding.UTF8.GetBytes(key))] != $"127.0.0.1:{cluster.RespPort(0)}");
        Assert.Equal(foreign, (await RedisTools.CliOutputAsync(cluster.RespPort(0), "GET", foreign)).Trim());

        // Rolling restart under load: every silo in turn gets SIGTERM and is started again on its ports.
        var batches = Assert.IsType<CubbyClient>(client).Batches!;
        var batchedBefore = batches.Batchers.Sum(static batcher => batcher.OperationsSent);
        await using (var load = new ClusterLoad(client, workers: 16, keySpace: 2_000, prefix: "rolling"))
        {
            var clock = Stopwatch.StartNew();
            for (var i = 0; i < cluster.Count; i++)
            {
                Assert.Equal(0, await cluster.StopAsync(i));
                await cluster.StartAsync(i);
                await cluster.WaitSettledAsync(3, TimeSpan.FromSeconds(90));
            }

            await load.StopAsync();
            var batched = batches.Batchers.Sum(static batcher => batcher.OperationsSent) - batchedBefore;
            output.WriteLine($"rolling restart: {load.Calls} calls in {clock.Elapsed.TotalSeconds:0.0} s = {load.Calls / clock.Elapsed.TotalSeconds:0} ops/s ({batched} operations in batches), longest call {load.LongestCall.TotalMilliseconds:0} ms, failures {load.Failures.Count}");
            Assert.True(batched > 0, "no call went in a batch: the rolling restart tested single calls only");

            // A batch for a gateway the client does not count live would be passed on by another silo as silo-to-silo
            // traffic to that gateway's client port, which Orleans warns of and which loses messages between the silos.
            var silos = cluster.DescribeAll();
            Assert.False(silos.Contains("Attempting to send message addressed to", StringComparison.Ordinal), $"a silo sent a message over the wrong connection{silos}");
            Assert.True(load.Failures.Count == 0, $"failed calls: {string.Join("; ", load.Failures.Take(10))}{cluster.DescribeAll()}");
            var lost = await load.FindLostAsync(client);
            Assert.True(lost.Count == 0, $"{lost.Count} acknowledged writes lost, first: {string.Join(", ", lost.Take(5))}{cluster.DescribeAll()}");
        }

        var missing = await ClusterKeys.FindMissingAsync(client, keys);
        output.WriteLine($"after the rolling restart: {missing.Count} of {KeyCount} keys lost");
        Assert.True(missing.Count == 0, ClusterKeys.Describe(missing));

        // kill -9 under load: calls succeed again once Orleans has declared the silo dead.
        const int Victim = 1;
        owners = await ClusterKeys.OwnersAsync(cluster, 0);
        var victimEndpoint = $"127.0.0.1:{cluster.RespPort(Victim)}";
        var victimKeys = keys.Where(key => owners[shardMap.SlotOf(Encoding.UTF8.GetBytes(key))] == victimEndpoint).ToArray();
        Assert.NotEmpty(victimKeys);
        await using (var load = new ClusterLoad(client, workers: 8, keySpace: 2_000, prefix: "crash"))
        {
            await Cubby.Tests.Client.Poll.UntilAsync(() => load.Calls > 1_000, TimeSpan.FromSeconds(30), "load before the kill");
            cluster.Kill(Victim);
            var recovered = await ClusterKeys.WaitUntilKeysAnswerAsync(client, victimKeys.Take(50).ToArray(), TimeSpan.FromSeconds(60));
            output.WriteLine($"kill -9: calls for the dead silo's shards succeed again after {recovered.TotalSeconds:0.0} s");
            Assert.True(recovered < TimeSpan.FromSeconds(15), $"calls succeeded again only after {recovered}{cluster.DescribeAll()}");
            await load.StopAsync();
            output.WriteLine($"during the kill: {load.Calls} calls, {load.Failures.Count} failed, longest {load.LongestCall.TotalMilliseconds:0} ms");
        }

        // The dead silo's shards resumed with their entries from the replicas the rolling restart left in place.
        missing = await ClusterKeys.FindMissingAsync(client, keys.Except(victimKeys.Take(50)).ToArray());
        output.WriteLine($"after the kill: {missing.Count} of {KeyCount} keys lost");
        Assert.True(missing.Count == 0, $"{ClusterKeys.Describe(missing)}{cluster.DescribeAll()}");
        Assert.Equal(OrleansDead, await VictimStatusAsync(clusterId, cluster.SiloPort(Victim)));

        // Started again on its endpoint, it rejoins as a new generation and its shards come home with their data.
        await cluster.StartAsync(Victim);
        await cluster.WaitSettledAsync(3, TimeSpan.FromSeconds(90));

        // The shards that moved to the survivors after the kill come back to the rejoined silo once the others see it,
        // carrying what was written to them meanwhile.
        var rejoined = new Dictionary<string, string>();
        await Cubby.Tests.Client.Poll.UntilAsync(async () =>
        {
            rejoined = await cluster.ClusterInfoAsync(Victim);
            return rejoined["cubby_shards_migrated_in"] != "0";
        }, TimeSpan.FromSeconds(60), "shards to migrate back to the rejoined silo");
        output.WriteLine($"rejoined: {rejoined["cubby_shards_here"]} shards here, {rejoined["cubby_shards_migrated_in"]} migrated in");
        foreach (var key in victimKeys.Take(50))
        {
            Assert.Equal("after", Encoding.UTF8.GetString((await client.GetAsync(key))!));
        }

        missing = await ClusterKeys.FindMissingAsync(client, keys.Except(victimKeys.Take(50)).ToArray());
        Assert.True(missing.Count == 0, ClusterKeys.Describe(missing));
    }

    /// <summary>
    /// With three silo processes, a gateway client's calls go to the gateway of their shard's silo and run there:
    /// Orleans' own client would pick a gateway by hashing the grain, and about two calls in three would then be
    /// forwarded between silos. A call the batch's silo ran crossed the network once; only the rest can have been
    /// forwarded, and they stay under 5 %.
    /// </summary>
    [Fact]
    public async Task Gateway_calls_to_three_silo_processes_run_on_the_silo_they_reach()
    {
        const int Callers = 64;
        const int ReadsPerCaller = 300;
        using var cluster = new ProcessCluster(ConnectionString, $"hops-{Guid.NewGuid():N}", 3, SlotCount);
        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(3, TimeSpan.FromSeconds(90));
        await using var services = ClusterKeys.ClientFor(cluster);
        var client = services.GetRequiredService<ICubbyClient>();
        var keys = Enumerable.Range(0, 2_000).Select(i => $"hop:{i}").ToArray();
        await ClusterKeys.WriteAllAsync(client, keys);

        // Settled counts the shards, not where they are: shards opened before the last silo joined move home over the
        // rebalancer's next passes, and the client learns each new place within a second of missing it. The measure
        // starts once all three gateways run batches and a whole round of reads ran where the client sent it.
        var batches = Assert.IsType<CubbyClient>(client).Batches!;
        long Ran() => batches.Batchers.Sum(static batcher => batcher.OperationsRun);
        const int WarmReads = 20;
        await Cubby.Tests.Client.Poll.UntilAsync(async () =>
        {
            var ranBeforeRound = Ran();
            await ReadAllAsync(client, keys, Callers, WarmReads);
            var ranInRound = Ran() - ranBeforeRound;
            return batches.Batchers.Count(static batcher => batcher.OperationsRun > 0) == 3 && ranInRound == Callers * WarmReads;
        }, TimeSpan.FromSeconds(60), "a round of reads to run on the silos they reached, through all three gateways");

        // With three gateways holding shards, each takes one batch at a time: the others fill the gap, batches grow.
        Assert.All(batches.Batchers, static batcher => Assert.Equal(1, batcher.MaxInFlight));

        var ranBefore = Ran();
        var clock = Stopwatch.StartNew();
        await ReadAllAsync(client, keys, Callers, ReadsPerCaller);
        var elapsed = clock.Elapsed;
        var calls = Callers * ReadsPerCaller;
        var ran = Ran() - ranBefore;

        output.WriteLine($"3 silo processes: {calls} Gets in {elapsed.TotalSeconds:0.00} s = {calls / elapsed.TotalSeconds:0} ops/s; {ran} ran on the silo they reached, at most {calls - ran} ({100.0 * (calls - ran) / calls:0.00} %) forwarded");
        Assert.True(calls - ran < calls / 20, $"{calls - ran} of {calls} Gets did not run on the silo they reached");
    }

    private static Task ReadAllAsync(ICubbyClient client, string[] keys, int callers, int reads) =>
        Task.WhenAll(Enumerable.Range(0, callers).Select(caller => Task.Run(async () =>
        {
            for (var i = 0; i < reads; i++)
            {
                var key = keys[((caller * 7_919) + i) % keys.Length];
                Assert.Equal(key, Encoding.UTF8.GetString((await client.GetAsync(key))!));
            }
        })));

    private async Task<long> VictimStatusAsync(string clusterId, int siloPort)
    {
        await using var connection = new NpgsqlConnection(ConnectionString);
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand("SELECT status FROM orleansmembershiptable WHERE deploymentid = @cluster AND port = @port ORDER BY generation DESC LIMIT 1", connection);
        command.Parameters.AddWithValue("cluster", clusterId);
        command.Parameters.AddWithValue("port", siloPort);
        return Convert.ToInt64(await command.ExecuteScalarAsync(), CultureInfo.InvariantCulture);
    }
}
