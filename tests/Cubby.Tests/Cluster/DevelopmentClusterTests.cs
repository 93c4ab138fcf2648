using Cubby.Client;
using Cubby.Resp;
using Cubby.Silo.Cluster.Slots;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using Xunit.Abstractions;

namespace Cubby.Tests.Cluster;

/// <summary>Three silos in this process on Development membership: routing, multi-key commands, joins and leaves.</summary>
public sealed class DevelopmentClusterTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Keys_written_through_any_silo_are_read_through_every_other()
    {
        await using var cluster = await DevelopmentCluster.StartAsync(3);
        var clients = await ConnectAllAsync(cluster);
        try
        {
            for (var i = 0; i < 300; i++)
            {
                RespAssert.Ok(await clients[i % 3].CallAsync("SET", $"key:{i}", $"value:{i}"));
            }

            foreach (var client in clients)
            {
                for (var i = 0; i < 300; i++)
                {
                    RespAssert.Bulk($"value:{i}", await client.CallAsync("GET", $"key:{i}"));
                }
            }

            // The keys are spread over all three silos, each holding only the slots it owns.
            foreach (var silo in cluster.Silos)
            {
                Assert.InRange(silo.Runtime.Catalog.Count(), 30, 200);
            }
        }
        finally
        {
            await DisposeAllAsync(clients);
        }
    }

    [Fact]
    public async Task Multi_key_commands_work_across_silos()
    {
        await using var cluster = await DevelopmentCluster.StartAsync(3);
        var clients = await ConnectAllAsync(cluster);
        try
        {
            var keys = Enumerable.Range(0, 60).Select(i => $"multi:{i}").ToArray();
            RespAssert.Ok(await clients[0].CallAsync(["MSET", .. keys.SelectMany(key => new[] { key, key + "!" })]));
            var values = await clients[1].CallAsync(["MGET", keys[5], "missing", .. keys]);
            Assert.Equal([keys[5] + "!", "(nil)", .. keys.Select(key => key + "!")], RespAssert.Strings(values));
            RespAssert.Integer(61, await clients[2].CallAsync(["EXISTS", keys[0], .. keys]));
            foreach (var client in clients)
            {
                RespAssert.Integer(60, await client.CallAsync("DBSIZE"));
            }

            Assert.Equal(keys.Order(), (await ScanAllAsync(clients[2], "multi:*")).Order());
            Assert.Equal(keys.Order(), RespAssert.Strings(await clients[0].CallAsync("KEYS", "multi:*")).Order());

            RespAssert.Integer(30, await clients[2].CallAsync(["DEL", .. keys[..30], "missing"]));
            RespAssert.Integer(30, await clients[0].CallAsync("DBSIZE"));
            RespAssert.Error("CROSSSLOT", await clients[0].CallAsync(["MSETNX", .. keys[30..].SelectMany(key => new[] { key, "x" })]));
            RespAssert.Integer(1, await clients[1].CallAsync("MSETNX", "{user:1}:a", "1", "{user:1}:b", "2"));
            RespAssert.Ok(await clients[1].CallAsync("FLUSHALL"));
            foreach (var client in clients)
            {
                RespAssert.Integer(0, await client.CallAsync("DBSIZE"));
            }
        }
        finally
        {
            await DisposeAllAsync(clients);
        }
    }

    [Fact]
    public async Task Resp3_clients_are_pushed_the_new_view_when_a_silo_joins()
    {
        await using var cluster = await DevelopmentCluster.StartAsync(2);
        await using var client = await cluster.Silos[1].ConnectAsync();
        await client.CallAsync("HELLO", "3");
        var before = (await client.CallAsync("CUBBY.VIEW")).Items[0].Integer;

        await cluster.AddSiloAsync();
        await cluster.WaitForViewAsync(3);

        RespValue push;
        do
        {
            push = await client.ReadAsync().WaitAsync(TimeSpan.FromSeconds(30));
        }
        while (push.Items[1].Items[2].Items.Count != 3);

        Assert.Equal(RespType.Push, push.Type);
        Assert.Equal("cubby.view", push.Items[0].AsString());
        Assert.True(push.Items[1].Items[0].Integer > before);
    }

    [Fact]
    public async Task Internal_commands_are_refused_to_clients_and_the_cluster_secret_is_checked()
    {
        await using var cluster = await DevelopmentCluster.StartAsync(1);
        await using var client = await cluster.Primary.ConnectAsync();
        RespAssert.Error("NOPERM", await client.CallAsync("CUBBY.FORWARD", "2", "1", "GET", "k"));
        RespAssert.Error("NOPERM", await client.CallAsync("CUBBY.HANDOFF", "EMPTY", "1"));
        RespAssert.Error("WRONGPASS", await client.CallAsync("AUTH", "cubby-silo", "not-the-secret"));
        RespAssert.Ok(await client.CallAsync("AUTH", "cubby-silo", DevelopmentCluster.Secret));
        RespAssert.Ok(await client.CallAsync("CUBBY.FORWARD", "2", "1", "SET", "k", "v"));
    }

    [Fact]
    public async Task A_silo_with_a_different_slot_count_is_refused()
    {
        await using var cluster = await DevelopmentCluster.StartAsync(1);
        var primary = $"127.0.0.1:{cluster.Primary.RespEndPoint.Port}";
        var failure = await Assert.ThrowsAnyAsync<Exception>(() => TestSilo.StartAsync(options =>
        {
            DevelopmentCluster.Configure(options, primary);
            options.SlotCount = 128;
        }));
        Assert.Contains("SlotCount", failure.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_join_and_a_graceful_leave_under_writers_lose_no_acknowledged_write_and_fail_no_call()
    {
        await using var cluster = await DevelopmentCluster.StartAsync(3);
        await using var services = ClientFor(cluster);
        var client = services.GetRequiredService<ICubbyClient>();
        await using var load = new ClusterLoad(client, workers: 8, keySpace: 500);
        await Poll(() => load.Calls > 2_000, "the load to get going");
        var steady = load.TakeLongestCall();
        var handedOff = cluster.Silos.Sum(silo => silo.Runtime.Statistics.SlotsHandedOff);

        var joined = await cluster.AddSiloAsync();
        await cluster.WaitForViewAsync(4);
        var moved = cluster.Silos.Sum(silo => silo.Runtime.Statistics.SlotsHandedOff) - handedOff;
        await Poll(() => load.Calls > 6_000, "calls after the join");
        var duringJoin = load.TakeLongestCall();

        await cluster.StopAsync(cluster.Silos[1]);
        await cluster.WaitForViewAsync(3);
        await Poll(() => load.Calls > 10_000, "calls after the leave");
        await load.StopAsync();
        var duringLeave = load.TakeLongestCall();

        output.WriteLine($"calls {load.Calls}; longest call steady {steady.TotalMilliseconds:0.0} ms, join {duringJoin.TotalMilliseconds:0.0} ms, leave {duringLeave.TotalMilliseconds:0.0} ms; slots handed off at the join: {moved} of 64");
        Assert.InRange(moved, 1, 40);
        Assert.Empty(load.Failures);
        Assert.Empty(await load.FindLostAsync(client));
        Assert.InRange(joined.Runtime.Cluster.Slots.Count(SlotState.Held), 1, 64);
    }

    [Fact]
    public async Task Survivors_close_their_links_to_a_silo_that_left()
    {
        await using var cluster = await DevelopmentCluster.StartAsync(3);
        var leaver = cluster.Silos[2];
        var port = leaver.RespEndPoint.Port;
        await using (var through = await cluster.Primary.ConnectAsync())
        {
            // Keys on every silo, so the primary forwards to the leaver.
            for (var i = 0; i < 64; i++)
            {
                RespAssert.Ok(await through.CallAsync("SET", $"link-{i}", "v"));
            }
        }

        Assert.True(cluster.Primary.Runtime.Links.IsLinkedTo("127.0.0.1", port));

        await cluster.StopAsync(leaver);
        await cluster.WaitForViewAsync(2);
        await Poll(() => cluster.Silos.All(silo => !silo.Runtime.Links.IsLinkedTo("127.0.0.1", port)), "the survivors to drop their links to the leaver");
    }

    internal static ServiceProvider ClientFor(DevelopmentCluster cluster)
    {
        var services = new ServiceCollection();
        services.AddLogging();
        services.AddCubbyClient(options =>
        {
            foreach (var silo in cluster.Silos)
            {
                options.Endpoints.Add($"127.0.0.1:{silo.RespEndPoint.Port}");
            }
        });
        return services.BuildServiceProvider();
    }

    private static async Task<List<string>> ScanAllAsync(RespTestClient client, string pattern)
    {
        var keys = new List<string>();
        var cursor = "0";
        do
        {
            var reply = await client.CallAsync("SCAN", cursor, "MATCH", pattern, "COUNT", "7");
            cursor = reply.Items[0].AsString()!;
            keys.AddRange(RespAssert.Strings(reply.Items[1]));
        }
        while (cursor != "0");
        return keys;
    }

    private static async Task<RespTestClient[]> ConnectAllAsync(DevelopmentCluster cluster) =>
        await Task.WhenAll(cluster.Silos.Select(silo => silo.ConnectAsync()));

    private static async Task DisposeAllAsync(IEnumerable<RespTestClient> clients)
    {
        foreach (var client in clients)
        {
            await client.DisposeAsync();
        }
    }

    private static Task Poll(Func<bool> condition, string what) =>
        Cubby.Tests.Client.Poll.UntilAsync(condition, TimeSpan.FromSeconds(60), what);
}
