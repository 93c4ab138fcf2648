using Cubby.Client;
using Cubby.Sharding;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary><see cref="ICubbyClient.GetOwnerAsync"/>: the key's shard says where it is active.</summary>
public sealed class KeyOwnerTests
{
    [Fact]
    public async Task GetOwnerAsync_names_the_keys_slot_and_the_silo_where_its_shard_is_active_whichever_gateway_is_asked()
    {
        await using var cluster = await TestCluster.StartAsync(3);
        var siloByRespEndpoint = cluster.Silos.ToDictionary(silo => $"127.0.0.1:{silo.RespEndPoint.Port}", silo => silo.SiloEndpoint.ToString());

        // One app per silo, each through its own gateway.
        var apps = cluster.Silos.Select(silo => ClientHarness.GatewayApp(silo)).ToArray();
        try
        {
            var clients = apps.Select(app => app.GetRequiredService<ICubbyClient>()).ToArray();
            await using var monitor = await cluster.Silos[0].ConnectAsync();
            var shards = new ShardMap();
            for (var i = 0; i < 40; i++)
            {
                var key = $"owned:{i}";
                Assert.Equal(WriteOutcome.Created, await clients[i % clients.Length].PutAsync(key, "v"u8.ToArray()));
                var owners = await Task.WhenAll(clients.Select(client => client.GetOwnerAsync(key).AsTask()));
                Assert.All(owners, owner => Assert.Equal(shards.SlotOf(key), owner.Slot));

                // A shard is active on one silo at a time: every gateway names the same one, the one RESP's CUBBY.OWNER names.
                var silo = Assert.Single(owners.Select(owner => owner.Silo).Distinct());
                var resp = await monitor.CallAsync("CUBBY.OWNER", key);
                Assert.Equal(siloByRespEndpoint[resp.Items[1].AsString()!], silo);
            }

            await Assert.ThrowsAsync<ArgumentNullException>(async () => await clients[0].GetOwnerAsync(null!));
            await Assert.ThrowsAsync<ArgumentException>(async () => await clients[0].GetOwnerAsync(string.Empty));
        }
        finally
        {
            foreach (var app in apps)
            {
                await app.DisposeAsync();
            }
        }
    }
}
