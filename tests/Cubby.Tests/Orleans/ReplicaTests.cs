using System.Diagnostics;
using System.Text;
using Cubby.Client;
using Cubby.Grains.Placement;
using Cubby.Sharding;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using Xunit.Abstractions;

namespace Cubby.Tests.Orleans;

/// <summary>
/// <c>Cubby:Replicas</c> on silo processes over a real PostgreSQL: a silo killed with SIGKILL under eight writers loses
/// no acknowledged write, and no deleted or expired key comes back; a silo killed while shards migrate to it loses
/// nothing; a sliding entry kept alive by reads keeps its renewed deadline across a failover; two silos killed at once
/// lose exactly the shards whose every copy was on them; a primary frozen until the cluster declared it dead
/// acknowledges no write once it runs again.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class ReplicaTests(PostgresServer server, ITestOutputHelper output) : OwnSchemaTests(server, "cubby_replicas")
{
    private const int SlotCount = 256;

    [Fact]
    public async Task A_silo_killed_under_eight_writers_loses_no_acknowledged_write()
    {
        using var cluster = new ProcessCluster(ConnectionString, $"replicas-{Guid.NewGuid():N}", 3, SlotCount, "--Cubby:Replicas", "1");
        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(3, TimeSpan.FromSeconds(90));
        await using var services = ClusterKeys.ClientFor(cluster);
        var client = services.GetRequiredService<ICubbyClient>();

        var kept = Enumerable.Range(0, 5_000).Select(i => $"kept:{i}").ToArray();
        await ClusterKeys.WriteAllAsync(client, kept);
        var deleted = Enumerable.Range(0, 300).Select(i => $"deleted:{i}").ToArray();
        await ClusterKeys.WriteAllAsync(client, deleted);
        Assert.Equal(deleted.Length, await client.EvictManyAsync(deleted));
        var expiring = Enumerable.Range(0, 300).Select(i => $"expiring:{i}").ToArray();
        foreach (var key in expiring)
        {
            await client.PutAsync(key, Encoding.UTF8.GetBytes(key), CacheEntryOptions.ExpiresIn(TimeSpan.FromSeconds(1)));
        }

        const int Victim = 1;
        var owners = await ClusterKeys.OwnersAsync(cluster, 0);
        var shardMap = new ShardMap(SlotCount);
        var victimEndpoint = $"127.0.0.1:{cluster.RespPort(Victim)}";
        var victimKeys = kept.Where(key => owners[shardMap.SlotOf(Encoding.UTF8.GetBytes(key))] == victimEndpoint).ToArray();
        Assert.NotEmpty(victimKeys);

        await using (var load = new ClusterLoad(client, workers: 8, keySpace: 2_000, prefix: "crash"))
        {
            await Poll.UntilAsync(() => load.Calls > 1_000, TimeSpan.FromSeconds(30), "load before the kill");
            cluster.Kill(Victim);
            var recovered = await ClusterKeys.WaitUntilKeysAnswerAsync(client, victimKeys.Take(20).ToArray(), TimeSpan.FromSeconds(60));
            await load.StopAsync();
            output.WriteLine($"kill -9: the dead silo's shards answer again after {recovered.TotalSeconds:0.0} s; {load.Calls} calls, {load.Acknowledged.Count} keys acknowledged, {load.Failures.Count} failed, longest {load.LongestCall.TotalMilliseconds:0} ms");
            var lost = await load.FindLostAsync(client);
            Assert.True(lost.Count == 0, $"{lost.Count} acknowledged writes lost, first: {string.Join(", ", lost.Take(5))}{cluster.DescribeAll()}");
        }

        var missing = await ClusterKeys.FindMissingAsync(client, kept.Except(victimKeys.Take(20)).ToArray());
        Assert.True(missing.Count == 0, $"keys written before the kill are gone: {ClusterKeys.Describe(missing)}{cluster.DescribeAll()}");
        Assert.All(await client.GetManyAsync(deleted), Assert.Null);
        Assert.All(await client.GetManyAsync(expiring), Assert.Null);

        // Every surviving silo's RESP door reads the dead silo's keys, wherever their shards resumed.
        foreach (var survivor in cluster.Running())
        {
            await using var resp = await RespTestClient.ConnectAsync(cluster[survivor].RespEndPoint);
            foreach (var key in victimKeys.Skip(20).Take(100))
            {
                Assert.Equal(key, (await resp.CallAsync("GET", key)).AsString());
            }
        }
    }

    [Fact]
    public async Task A_silo_killed_while_shards_migrate_to_it_loses_nothing()
    {
        const int ValueBytes = 2_048;
        const int Joiner = 2;
        using var cluster = await StartTwoOfThreeAsync();
        await using var services = ClusterKeys.ClientFor(cluster);
        var client = services.GetRequiredService<ICubbyClient>();
        var keys = Enumerable.Range(0, 30_000).Select(i => $"moving:{i}").ToArray();
        await ClusterKeys.WriteAllAsync(client, keys, ValueBytes);

        // The joiner's shards (about a third, 20 MB) start moving to it as soon as the others see it; it dies mid-move.
        string arrived;
        await using (var load = new ClusterLoad(client, workers: 8, keySpace: 2_000, prefix: "during"))
        {
            await cluster.StartAsync(Joiner);
            var info = new Dictionary<string, string>();
            await Poll.UntilAsync(async () =>
            {
                info = await cluster.ClusterInfoAsync(Joiner);
                return info["cubby_shards_migrated_in"] != "0";
            }, TimeSpan.FromSeconds(60), "shards to start arriving at the joiner");
            cluster.Kill(Joiner);
            arrived = info["cubby_shards_migrated_in"];

            var recovered = await ClusterKeys.WaitUntilReadsAnswerAsync(client, keys, TimeSpan.FromSeconds(90));
            await load.StopAsync();
            output.WriteLine($"killed with {arrived} shards arrived; reads answer again after {recovered.TotalSeconds:0.0} s; {load.Calls} calls, {load.Failures.Count} failed, longest {load.LongestCall.TotalMilliseconds:0} ms");
            var lost = await load.FindLostAsync(client);
            Assert.True(lost.Count == 0, $"{lost.Count} acknowledged writes lost, first: {string.Join(", ", lost.Take(5))}{cluster.DescribeAll()}");
        }

        var missing = await ClusterKeys.FindMissingAsync(client, keys, ValueBytes);
        output.WriteLine($"after the kill: {missing.Count} of {keys.Length} keys lost");
        Assert.True(missing.Count == 0, $"{ClusterKeys.Describe(missing)} (the joiner was killed with {arrived} shards arrived){cluster.DescribeAll()}");
    }

    [Fact]
    public async Task A_silo_killed_while_its_shards_migrate_away_loses_no_acknowledged_write()
    {
        const int Joiner = 2;
        const int Source = 1;
        using var cluster = await StartTwoOfThreeAsync();
        await using var services = ClusterKeys.ClientFor(cluster);
        var client = services.GetRequiredService<ICubbyClient>();

        // Writers on every shard while the joiner's shards leave the other two for it; one of those dies mid-move, with
        // writes its shards answered a moment before.
        await using var load = new ClusterLoad(client, workers: 32, keySpace: 500, prefix: "leaving");
        await cluster.StartAsync(Joiner);
        await Poll.UntilAsync(
            async () => (await cluster.ClusterInfoAsync(Joiner))["cubby_shards_migrated_in"] != "0",
            TimeSpan.FromSeconds(60),
            "shards to start arriving at the joiner");
        cluster.Kill(Source);

        var recovered = await ClusterKeys.WaitUntilReadsAnswerAsync(client, [.. load.Acknowledged.Keys], TimeSpan.FromSeconds(90));
        await load.StopAsync();
        output.WriteLine($"reads answer again after {recovered.TotalSeconds:0.0} s; {load.Calls} calls, {load.Failures.Count} failed, longest {load.LongestCall.TotalMilliseconds:0} ms");

        // Calls that failed while the shards resumed (their outcome unknown to the writers) are printed; what is asserted
        // is that every acknowledged write reads back.
        foreach (var failure in load.Failures.Take(5))
        {
            output.WriteLine(failure);
        }

        var lost = await load.FindLostAsync(client);
        Assert.True(lost.Count == 0, $"{lost.Count} acknowledged writes lost, first: {string.Join(", ", lost.Take(5))}{cluster.DescribeAll()}");
    }

    /// <summary>Three silo processes with one replica per shard, of which the first two are started and settled.</summary>
    private async Task<ProcessCluster> StartTwoOfThreeAsync()
    {
        var cluster = new ProcessCluster(ConnectionString, $"replicas-{Guid.NewGuid():N}", 3, SlotCount, "--Cubby:Replicas", "1");
        try
        {
            await cluster.StartAsync(0);
            await cluster.StartAsync(1);
            await cluster.WaitSettledAsync(2, TimeSpan.FromSeconds(90));
            return cluster;
        }
        catch
        {
            cluster.Dispose();
            throw;
        }
    }

    [Fact]
    public async Task A_sliding_entry_kept_alive_by_reads_outlives_its_first_deadline_across_a_failover()
    {
        var window = TimeSpan.FromSeconds(8);
        using var cluster = new ProcessCluster(ConnectionString, $"replicas-{Guid.NewGuid():N}", 3, SlotCount, "--Cubby:Replicas", "1");
        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(3, TimeSpan.FromSeconds(90));
        await using var services = ClusterKeys.ClientFor(cluster);
        var client = services.GetRequiredService<ICubbyClient>();

        const int Victim = 1;
        var key = await ClusterKeys.KeyOnAsync(cluster, Victim, "sliding");
        await client.PutAsync(key, Encoding.UTF8.GetBytes(key), CacheEntryOptions.Sliding(window));

        // Read past the deadline of the write: only the renewals keep it, and only those its replica heard survive.
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < window * 1.5)
        {
            Assert.NotNull(await client.GetAsync(key));
            await Task.Delay(TimeSpan.FromMilliseconds(500));
        }

        cluster.Kill(Victim);
        var recovered = await ClusterKeys.WaitUntilReadsAnswerAsync(client, [key], TimeSpan.FromSeconds(60));
        var value = await client.GetAsync(key);
        output.WriteLine($"written {clock.Elapsed.TotalSeconds:0.0} s ago with an {window.TotalSeconds:0} s window; reads answered again {recovered.TotalSeconds:0.0} s after the kill; found: {value is not null}");
        Assert.True(value is not null, $"the entry was gone {clock.Elapsed.TotalSeconds:0.0} s after its write, though read every 0.5 s until the kill{cluster.DescribeAll()}");
    }

    [Fact]
    public async Task Two_silos_killed_at_once_lose_only_the_shards_whose_every_copy_was_on_them()
    {
        using var cluster = new ProcessCluster(ConnectionString, $"replicas-{Guid.NewGuid():N}", 4, SlotCount, "--Cubby:Replicas", "1");
        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(4, TimeSpan.FromSeconds(120));
        await cluster.WaitCopiesAtHomesAsync(replicas: 1, TimeSpan.FromSeconds(60));
        await using var services = ClusterKeys.ClientFor(cluster);
        var client = services.GetRequiredService<ICubbyClient>();
        var keys = Enumerable.Range(0, 4_000).Select(i => $"pair:{i}").ToArray();
        await ClusterKeys.WriteAllAsync(client, keys);

        // A shard's copies are on the two silos that rank highest for it: its home and the next.
        int[] victims = [1, 2];
        var endpoints = Enumerable.Range(0, cluster.Count).Select(cluster.SiloEndpoint).ToArray();
        var shardMap = new ShardMap(SlotCount);
        bool EveryCopyKilled(int slot) => endpoints.Select((endpoint, index) => (Score: ShardHomes.Score(slot, endpoint), Index: index))
            .OrderByDescending(static silo => silo.Score).Take(2).All(silo => victims.Contains(silo.Index));
        var expectedLost = keys.Where(key => EveryCopyKilled(shardMap.SlotOf(Encoding.UTF8.GetBytes(key)))).ToHashSet();
        Assert.NotEmpty(expectedLost);

        foreach (var victim in victims)
        {
            cluster.Kill(victim);
        }

        // Reads answer once Orleans has declared both silos dead and their shards resumed elsewhere.
        var recovered = await ClusterKeys.WaitUntilReadsAnswerAsync(client, keys, TimeSpan.FromSeconds(90));
        var read = await client.GetManyAsync(keys);
        var lost = keys.Where((key, i) => read[i] is null).ToHashSet();
        output.WriteLine($"two silos killed: reads answer again after {recovered.TotalSeconds:0.0} s; {lost.Count} keys lost, {expectedLost.Count} expected");
        Assert.True(lost.SetEquals(expectedLost), $"lost {lost.Count} keys, expected {expectedLost.Count}; unexpected: {string.Join(", ", lost.Except(expectedLost).Take(5))}; kept though expected lost: {string.Join(", ", expectedLost.Except(lost).Take(5))}{cluster.DescribeAll()}");
        Assert.All(keys.Where((key, i) => read[i] is not null), key => Assert.Equal(key, Encoding.UTF8.GetString(read[Array.IndexOf(keys, key)]!)));
    }

    [Fact]
    public async Task A_primary_frozen_until_declared_dead_acknowledges_no_write_it_loses_when_it_wakes()
    {
        using var cluster = new ProcessCluster(ConnectionString, $"replicas-{Guid.NewGuid():N}", 3, SlotCount, "--Cubby:Replicas", "1");
        await cluster.StartAllAsync();
        await cluster.WaitSettledAsync(3, TimeSpan.FromSeconds(90));
        await using var services = ClusterKeys.ClientFor(cluster);
        var client = services.GetRequiredService<ICubbyClient>();

        const int Stale = 1;
        var key = await ClusterKeys.KeyOnAsync(cluster, Stale, "fenced");
        await using var stale = await RespTestClient.ConnectAsync(cluster[Stale].RespEndPoint);
        Assert.Equal("OK", (await stale.CallAsync("SET", key, "before")).AsString());

        // Frozen, the silo is declared dead and its shard resumes on the silo that kept its replica, which takes a write.
        cluster[Stale].Pause();
        try
        {
            await Poll.UntilAsync(async () =>
            {
                try
                {
                    await client.PutAsync(key, Encoding.UTF8.GetBytes("after"));
                    return true;
                }
                catch (Exception exception) when (exception is CubbyException or TimeoutException)
                {
                    return false;
                }
            }, TimeSpan.FromSeconds(60), $"the frozen silo's shard to take writes elsewhere{cluster.DescribeAll()}");
        }
        finally
        {
            cluster[Stale].Resume();
        }

        // Woken, the old primary still holds the shard until it hears it is dead: it must not answer a write it takes
        // there. It may answer one it passed on to the shard's new home (its door retries a fenced shard through
        // Orleans), and then the cluster must hold that write.
        string? answer;
        try
        {
            answer = (await stale.CallAsync("SET", key, "stale")).AsString();
        }
        catch (Exception exception) when (exception is IOException or OperationCanceledException or InvalidDataException)
        {
            answer = null;
        }

        var held = Encoding.UTF8.GetString((await client.GetAsync(key))!);
        output.WriteLine($"the woken primary answered the write with {answer ?? "a dropped connection"}; the cluster holds \"{held}\"");
        Assert.Equal(answer == "OK" ? "stale" : "after", held);
    }
}
