using Cubby.Resp;
using Cubby.Tests.Infrastructure;
using Cubby.Tests.Client;
using Cubby.Tests.Silo;

namespace Cubby.Tests.Orleans;

/// <summary>
/// CLIENT TRACKING across three real silos in the test process: a connection on one silo tracks keys whose shards are
/// on every silo, and is told of changes made through any silo, and of its keys' shards leaving with a silo.
/// </summary>
public sealed class TrackingClusterTests
{
    [Fact]
    public async Task A_tracking_connection_is_told_of_writes_through_any_silo_to_keys_on_any_silo()
    {
        await using var cluster = await TestCluster.StartAsync(3);
        await using var tracker = await cluster.Silos[0].ConnectAsync(3);
        await using var writer = await cluster.Silos[2].ConnectAsync();
        RespAssert.Ok(await tracker.CallAsync("CLIENT", "TRACKING", "ON"));
        var keys = Enumerable.Range(0, 60).Select(static i => $"tracked:{i}").ToArray();

        // Read by a multi-key command split across silos, and one by one.
        await tracker.CallAsync(["MGET", .. keys[..30]]);
        foreach (var key in keys[30..])
        {
            await tracker.CallAsync("GET", key);
        }

        Assert.True(keys.Select(key => HolderOf(cluster, key)).Distinct().Count() == 3, "the keys' shards are on every silo");

        foreach (var key in keys)
        {
            RespAssert.Ok(await writer.CallAsync("SET", key, "changed"));
        }

        Assert.Equal(keys.Order(), (await InvalidatedAsync(tracker, keys.Length)).Order());
    }

    [Fact]
    public async Task Keys_whose_shards_leave_with_a_stopping_silo_are_invalidated()
    {
        await using var cluster = await TestCluster.StartAsync(3);
        await using var tracker = await cluster.Silos[0].ConnectAsync(3);
        RespAssert.Ok(await tracker.CallAsync("CLIENT", "TRACKING", "ON"));
        var leaving = cluster.Silos[2];
        var read = Enumerable.Range(0, 60).Select(static i => $"moving:{i}").ToArray();
        foreach (var key in read)
        {
            await tracker.CallAsync("GET", key);
        }

        var keys = read.Where(key => HolderOf(cluster, key) == 2).ToArray();
        Assert.True(keys.Length > 5, $"only {keys.Length} of the keys read are on the stopping silo");

        // The shards move with their entries but not with who read what, so their readers drop what they cached.
        await cluster.StopAsync(leaving);

        Assert.Equal(keys.Order(), (await InvalidatedAsync(tracker, keys.Length)).Order());
    }

    [Fact]
    public async Task A_BCAST_connection_hears_changes_on_every_silo_and_on_one_that_joins_later()
    {
        await using var cluster = await TestCluster.StartAsync(2);
        await using var tracker = await cluster.Silos[0].ConnectAsync(3);
        await using var writer = await cluster.Silos[1].ConnectAsync();
        RespAssert.Ok(await tracker.CallAsync("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "news:"));
        var keys = Enumerable.Range(0, 40).Select(static i => $"news:{i}").ToArray();
        foreach (var key in keys)
        {
            RespAssert.Ok(await writer.CallAsync("SET", key, "1"));
        }

        Assert.True(keys.Select(key => HolderOf(cluster, key)).Distinct().Count() == 2, "the keys' shards are on both silos");
        RespAssert.Ok(await writer.CallAsync("SET", "sports:1", "1"));
        Assert.Equal(keys.Order(), (await InvalidatedAsync(tracker, keys.Length)).Order());

        // A silo that joins learns the prefixes; it may have changed keys before, so the connection hears "everything".
        await cluster.AddSiloAsync();
        await cluster.WaitForActiveSilosAsync(3);
        var caughtUp = await tracker.ReadAsync();
        Assert.Equal("invalidate", caughtUp.Items[0].AsString());
        Assert.True(caughtUp.Items[1].IsNull, $"expected a null invalidation, got {caughtUp}");

        // Shards move over in batches, so the first ones to arrive may hold none of these keys.
        await Poll.UntilAsync(() => keys.Any(key => HolderOf(cluster, key) == 2), TimeSpan.FromSeconds(60), "a shard holding one of the keys to move to the joining silo");
        var moved = keys.Where(key => HolderOf(cluster, key) == 2).ToArray();
        foreach (var key in moved)
        {
            RespAssert.Ok(await writer.CallAsync("SET", key, "2"));
        }

        Assert.Equal(moved.Order(), (await InvalidatedAsync(tracker, moved.Length)).Order());
    }

    /// <summary>Which silo of the cluster holds the shard of <paramref name="key"/> active; -1 when none does yet.</summary>
    private static int HolderOf(TestCluster cluster, string key)
    {
        var slot = cluster.Primary.Runtime.Catalog.ShardMap.SlotOf(System.Text.Encoding.UTF8.GetBytes(key));
        for (var i = 0; i < cluster.Silos.Count; i++)
        {
            if (cluster.Silos[i].Runtime.Catalog.Find(slot) is { IsOpen: true })
            {
                return i;
            }
        }

        return -1;
    }

    /// <summary>Reads invalidation pushes until <paramref name="count"/> keys were named; fails if a push is not one.</summary>
    private static async Task<List<string>> InvalidatedAsync(RespTestClient tracker, int count)
    {
        var invalidated = new List<string>();
        while (invalidated.Count < count)
        {
            var push = await tracker.ReadAsync();
            Assert.Equal(RespType.Push, push.Type);
            Assert.Equal("invalidate", push.Items[0].AsString());
            invalidated.AddRange(push.Items[1].Items.Select(static item => item.AsString()!));
        }

        Assert.True(count == invalidated.Count, $"expected {count} keys, got {string.Join(", ", invalidated)}");
        return invalidated;
    }
}
