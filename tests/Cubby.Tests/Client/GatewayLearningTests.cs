using System.Text;
using Cubby.Client;
using Cubby.Client.Gateways;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Messaging;

namespace Cubby.Tests.Client;

/// <summary>
/// A client given one silo's gateway learns every silo's from the cluster: each key's calls go to its own silo (batches
/// and the near cache work for every shard), a joining silo is taken on, and the client goes on when the gateway it was
/// given stops.
/// </summary>
public sealed class GatewayLearningTests
{
    private static readonly TimeSpan Refresh = TimeSpan.FromMilliseconds(200);

    [Fact]
    public async Task A_client_given_one_gateway_reads_every_shard_through_its_own_silo_and_follows_a_join()
    {
        await using var cluster = await TestCluster.StartAsync(2);
        await using var app = App(cluster.Primary, o => o.NearCache.Enabled = true);
        var client = (CubbyClient)app.GetRequiredService<ICubbyClient>();
        await LearnedAsync(app, cluster.Silos);

        // A key whose shard is on the silo the client was not given.
        var other = cluster.Silos[1];
        var key = await KeyOnAsync(client, other, "far");
        await client.PutAsync(key, "v1"u8.ToArray());
        await Poll.UntilAsync(
            async () => Encoding.UTF8.GetString((await client.GetAsync(key))!) == "v1" && Batcher(client, other)?.OperationsRun > 0,
            TestDeadlines.Phase,
            "a read of the far key to go in a batch straight to its own silo");

        // Kept by the near cache: a read of it sends nothing.
        await NearCacheTests.KeptAsync(client, key, "v1");
        var sent = client.Batches!.Batchers.Sum(static batcher => batcher.OperationsSent);
        Assert.Equal("v1", Encoding.UTF8.GetString((await client.GetAsync(key))!));
        Assert.Equal(sent, client.Batches.Batchers.Sum(static batcher => batcher.OperationsSent));

        // A silo that joins is learned, and takes its shards' calls directly.
        var joiner = await cluster.AddSiloAsync();
        await cluster.WaitForActiveSilosAsync(3);
        await LearnedAsync(app, cluster.Silos);
        var joinerKey = await KeyOnAsync(client, joiner, "joiner");
        await Poll.UntilAsync(
            async () => { await client.PutAsync(joinerKey, "v"u8.ToArray()); return Batcher(client, joiner)?.OperationsRun > 0; },
            TestDeadlines.Phase,
            "a write to go in a batch straight to the joining silo");
    }

    [Fact]
    public async Task A_client_goes_on_when_the_gateway_it_was_given_stops_and_without_learning_keeps_its_own()
    {
        // Not the primary: in Development clustering it keeps the membership table, without which no silo is learned.
        await using var cluster = await TestCluster.StartAsync(2);
        var given = cluster.Silos[1];
        await using var app = App(given);
        await using var unlearned = App(given, o => o.LearnGateways = false);
        var client = app.GetRequiredService<ICubbyClient>();
        var plain = unlearned.GetRequiredService<ICubbyClient>();
        var keys = Enumerable.Range(0, 50).Select(static i => $"kept:{i}").ToArray();
        foreach (var key in keys)
        {
            await client.PutAsync(key, Encoding.UTF8.GetBytes(key));
        }

        Assert.True(await plain.ExistsAsync(keys[0]));
        await LearnedAsync(app, cluster.Silos);

        // Learning is off: after the other client has learned (refreshes have passed), this one still lists its own.
        Assert.Empty(unlearned.GetRequiredService<LearnedGateways>().Gateways);
        var listed = await unlearned.GetRequiredService<IGatewayListProvider>().GetGateways();
        Assert.Equal(given.GatewayEndPoint.Port, Assert.Single(listed).Port);

        // The given silo stops (its shards move to the other with their entries); calls go on through the learned one.
        await cluster.StopAsync(given);
        foreach (var key in keys)
        {
            Assert.Equal(key, Encoding.UTF8.GetString((await client.GetAsync(key))!));
        }

        Assert.Equal(WriteOutcome.Created, await client.PutAsync("after-stop", "v"u8.ToArray()));
        await LearnedAsync(app, cluster.Silos);
    }

    [Fact]
    public async Task While_the_cluster_cannot_be_asked_the_given_gateway_stands_beside_the_learned_ones()
    {
        // In Development clustering the primary keeps the membership table: once it stops, no silo can say who is active.
        await using var cluster = await TestCluster.StartAsync(2);
        var given = cluster.Primary;
        await using var app = App(given);
        var client = app.GetRequiredService<ICubbyClient>();
        await client.PutAsync("before", "v"u8.ToArray());
        await LearnedAsync(app, cluster.Silos);
        var givenPort = given.GatewayEndPoint.Port;

        await cluster.StopAsync(given);
        var learned = app.GetRequiredService<LearnedGateways>();
        await Poll.UntilAsync(() => learned.Doubted, TestDeadlines.Phase, "the learned gateways to be doubted");
        var listed = (await app.GetRequiredService<IGatewayListProvider>().GetGateways()).Select(static uri => uri.Port).ToArray();
        Assert.Contains(givenPort, listed);
        Assert.Contains(cluster.Silos[0].GatewayEndPoint.Port, listed);

        // The learned silo still takes calls, the moved shard's entry included.
        Assert.Equal("v", Encoding.UTF8.GetString((await client.GetAsync("before"))!));
        Assert.Equal(WriteOutcome.Created, await client.PutAsync("after", "v"u8.ToArray()));
    }

    private static ServiceProvider App(TestSilo given, Action<CubbyClientOptions>? configure = null) =>
        ClientHarness.GatewayApp(given, configure: o =>
        {
            o.GatewayRefreshInterval = Refresh;
            configure?.Invoke(o);
        });

    /// <summary>Waits until the client's learned gateways are exactly those of <paramref name="silos"/>.</summary>
    private static async Task LearnedAsync(ServiceProvider app, IReadOnlyList<TestSilo> silos)
    {
        var client = app.GetRequiredService<ICubbyClient>();
        var learned = app.GetRequiredService<LearnedGateways>();
        var expected = silos.Select(static silo => silo.GatewayEndPoint.Port).Order().ToArray();
        await Poll.UntilAsync(
            async () =>
            {
                await client.ExistsAsync("learn");
                return learned.Gateways.Select(static uri => uri.Port).Order().SequenceEqual(expected);
            },
            TestDeadlines.Phase,
            $"the client to learn the gateways {string.Join(", ", expected)}");
    }

    /// <summary>A key whose shard is active on <paramref name="silo"/>.</summary>
    private static async Task<string> KeyOnAsync(CubbyClient client, TestSilo silo, string prefix)
    {
        var endpoint = silo.SiloEndpoint.ToString();
        for (var i = 0; i < 10_000; i++)
        {
            var key = $"{prefix}:{i}";
            if ((await client.GetOwnerAsync(key)).Silo == endpoint)
            {
                return key;
            }
        }

        throw new InvalidOperationException($"No key of 10,000 has its shard on {endpoint}.");
    }

    private static Cubby.Client.Shards.GatewayBatcher? Batcher(CubbyClient client, TestSilo silo) =>
        client.Batches!.Batchers.FirstOrDefault(batcher => batcher.Gateway.Endpoint.Port == silo.GatewayEndPoint.Port);
}
