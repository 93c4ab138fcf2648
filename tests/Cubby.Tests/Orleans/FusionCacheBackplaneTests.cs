using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using Cubby.Tests.Silo;
using Microsoft.Extensions.DependencyInjection;
using ZiggyCreatures.Caching.Fusion;
using ZiggyCreatures.Caching.Fusion.Serialization.SystemTextJson;

namespace Cubby.Tests.Orleans;

/// <summary>
/// FusionCache, as teams run it on Redis: each node keeps values in memory, RedisCache as its second level and
/// StackExchange.Redis pub/sub as its backplane. Here both are Cubby, and two nodes talk to two different silos.
/// </summary>
public sealed class FusionCacheBackplaneTests
{
    [Fact]
    public async Task A_write_on_one_node_evicts_the_value_other_nodes_hold_in_memory_through_cubby_pub_sub()
    {
        await using var cluster = await TestCluster.StartAsync(2);
        await using var writer = Node(cluster.Silos[0], backplane: true);
        await using var reader = Node(cluster.Silos[1], backplane: true);
        await using var withoutBackplane = Node(cluster.Silos[1], backplane: false);
        var a = writer.GetRequiredService<IFusionCache>();
        var b = reader.GetRequiredService<IFusionCache>();
        var control = withoutBackplane.GetRequiredService<IFusionCache>();
        var key = SiloClients.UniqueKey("fusion");

        await a.SetAsync(key, "v1");
        Assert.Equal("v1", await b.GetOrDefaultAsync<string>(key));
        Assert.Equal("v1", await control.GetOrDefaultAsync<string>(key));

        await a.SetAsync(key, "v2");

        // The backplane's message drops the reader's copy, so it reads the new value from the second level; the node
        // without a backplane keeps serving its copy from memory, which shows the message is what made the difference.
        await Poll.UntilAsync(async () => await b.GetOrDefaultAsync<string>(key) == "v2", what: "the reader to see v2");
        Assert.Equal("v1", await control.GetOrDefaultAsync<string>(key));

        await a.RemoveAsync(key);
        await Poll.UntilAsync(async () => await b.GetOrDefaultAsync<string>(key) is null, what: "the reader to see the removal");
    }

    private static ServiceProvider Node(TestSilo silo, bool backplane)
    {
        var endpoint = $"127.0.0.1:{silo.RespEndPoint.Port}";
        var services = new ServiceCollection();
        services.AddStackExchangeRedisCache(options => options.Configuration = endpoint);
        var fusion = services.AddFusionCache()
            .WithOptions(options => options.WaitForInitialBackplaneSubscribe = true)
            .WithDefaultEntryOptions(new FusionCacheEntryOptions { Duration = TimeSpan.FromMinutes(10) })
            .WithSerializer(new FusionCacheSystemTextJsonSerializer())
            .WithRegisteredDistributedCache();
        if (backplane)
        {
            fusion.WithStackExchangeRedisBackplane(options => options.Configuration = endpoint);
        }

        return services.BuildServiceProvider();
    }
}
