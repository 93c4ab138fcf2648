using System.Text;
using Cubby.Client;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Orleans;

/// <summary>
/// A near-cache client while shards move: a silo joins and takes its share; the copies of the shards that moved are
/// dropped, since who read what does not move with the entries, and those of the shards that stayed are still served.
/// </summary>
public sealed class NearCacheMoveTests
{
    [Fact]
    public async Task Shards_that_move_drop_their_copies_and_only_theirs()
    {
        await using var cluster = await TestCluster.StartAsync(1);
        await using var app = ClientHarness.GatewayApp(cluster.Primary, configure: static o => o.NearCache.Enabled = true);
        var client = app.GetRequiredService<ICubbyClient>();
        var keys = Enumerable.Range(0, 200).Select(static i => $"moving:{i}").ToArray();
        foreach (var key in keys)
        {
            await client.PutAsync(key, Encoding.UTF8.GetBytes(key));
        }

        foreach (var key in keys)
        {
            await NearCacheTests.KeptAsync(client, key, key);
        }

        var joiner = await cluster.AddSiloAsync();
        await cluster.WaitForActiveSilosAsync(2);
        // The shards whose home is now the joiner move there; the others stay.
        var map = cluster.Primary.Runtime.Catalog.ShardMap;
        var homes = joiner.Services.GetRequiredService<Cubby.Grains.Placement.ShardHomes>();
        int SlotOf(string key) => map.SlotOf(Encoding.UTF8.GetBytes(key));
        await Poll.UntilAsync(() => keys.Any(key => homes.HomeOf(SlotOf(key)).Equals(homes.Self)), TimeSpan.FromSeconds(60), "the joiner to be the home of some shards");
        var moved = keys.Where(key => homes.HomeOf(SlotOf(key)).Equals(homes.Self)).ToArray();
        var stayed = keys.Except(moved).ToArray();
        Assert.NotEmpty(stayed);
        await Poll.UntilAsync(() => moved.All(key => joiner.Runtime.Catalog.Find(SlotOf(key)) is { IsOpen: true }), TimeSpan.FromSeconds(60), "the shards to move to the joining silo");

        var near = Assert.IsType<CubbyClient>(client).NearCache!;
        await Poll.UntilAsync(() => moved.All(key => !near.TryGet(key, out _)), TestDeadlines.Call, "the moved shards' copies to be dropped");
        Assert.All(stayed, key => Assert.True(near.TryGet(key, out _), $"{key} stayed on its silo but its copy was dropped"));
        foreach (var key in moved)
        {
            Assert.Equal(key, Encoding.UTF8.GetString((await client.GetAsync(key))!));
        }
    }
}
