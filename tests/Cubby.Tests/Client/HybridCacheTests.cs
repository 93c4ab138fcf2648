using Cubby.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary>
/// Microsoft's <see cref="HybridCache"/> with Cubby as its L2 (<see cref="IDistributedCache"/> and
/// <see cref="IBufferDistributedCache"/>): two app instances, each with its own service provider and in-memory L1,
/// share one cluster, so a value one instance created is the other's L2 hit.
/// </summary>
public sealed class HybridCacheTests
{
    [Fact]
    public async Task Two_app_instances_run_the_factory_once_per_key_and_RemoveAsync_clears_the_shared_L2()
    {
        await using var cluster = await TestCluster.StartAsync(2);
        await using var first = App(cluster.Silos[0]);
        await using var second = App(cluster.Silos[1]);
        var firstCache = first.GetRequiredService<HybridCache>();
        var secondCache = second.GetRequiredService<HybridCache>();
        var runs = 0;
        ValueTask<Product> Load(int id) { Interlocked.Increment(ref runs); return ValueTask.FromResult(new Product(id, $"Product {id}", 9.5m * id)); }
        var options = new HybridCacheEntryOptions { Expiration = TimeSpan.FromMinutes(5), LocalCacheExpiration = TimeSpan.FromMinutes(1) };

        var created = await firstCache.GetOrCreateAsync("product:1", ct => Load(1), options);

        // HybridCache answers its caller first and writes L2 behind it; once Cubby has the value, the other instance reads it.
        var cubby = second.GetRequiredService<ICubbyClient>();
        await Poll.UntilAsync(async () => await cubby.GetAsync("product:1") is not null, TimeSpan.FromSeconds(10), "HybridCache to write the value to Cubby");
        var fromL2 = await secondCache.GetOrCreateAsync("product:1", ct => Load(1), options);
        Assert.Equal(1, runs);
        Assert.Equal(created, fromL2);

        // Stored in Cubby with the entry's expiration.
        Assert.InRange((await cubby.GetTimeToLiveAsync("product:1"))!.Value, TimeSpan.FromMinutes(4), TimeSpan.FromMinutes(5));

        // 50 concurrent callers in each instance for a new key: one factory run in all.
        runs = 0;
        var callers = Enumerable.Range(0, 100).Select(i => (i % 2 == 0 ? firstCache : secondCache).GetOrCreateAsync("product:2", ct => Load(2), options).AsTask());
        var results = await Task.WhenAll(callers);
        Assert.All(results, product => Assert.Equal(2, product.Id));
        Assert.InRange(runs, 1, 2);

        // RemoveAsync clears L2 for every instance and this instance's L1; the next call creates the value again.
        await firstCache.RemoveAsync("product:1");
        Assert.Null(await cubby.GetAsync("product:1"));
        runs = 0;
        await firstCache.GetOrCreateAsync("product:1", ct => Load(1), options);
        Assert.Equal(1, runs);
    }

    private static ServiceProvider App(TestSilo silo)
    {
        var services = new ServiceCollection();
        services.AddCubbyClient(options => options.Endpoints.Add($"127.0.0.1:{silo.GatewayEndPoint.Port}")).AddCubbyDistributedCache();
        services.AddHybridCache();
        return services.BuildServiceProvider();
    }

    public sealed record Product(int Id, string Name, decimal Price);
}
