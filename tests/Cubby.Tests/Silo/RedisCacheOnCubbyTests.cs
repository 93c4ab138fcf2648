using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;
using StackExchange.Redis;

namespace Cubby.Tests.Silo;

/// <summary>
/// Apps written against Microsoft's Redis cache (AddStackExchangeRedisCache, which stores each entry as a hash) and
/// HybridCache on top of it, pointed at a silo instead of Redis. The silo runs on a fake clock, so expiry is tested by
/// moving time; two service providers stand for two app instances.
/// </summary>
public sealed class RedisCacheOnCubbyTests
{
    [Fact]
    public async Task A_value_set_by_one_app_is_read_refreshed_and_removed_by_another()
    {
        await using var silo = await ClockedSilo.StartAsync();
        await using var first = Provider(silo);
        await using var second = Provider(silo);
        var writer = first.GetRequiredService<IDistributedCache>();
        var reader = second.GetRequiredService<IDistributedCache>();
        byte[] value = [1, 2, 3, 0, 255];

        await writer.SetAsync("entry", value, new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromMinutes(1) });

        Assert.Equal(value, await reader.GetAsync("entry"));
        await reader.RefreshAsync("entry");
        await writer.RemoveAsync("entry");
        Assert.Null(await reader.GetAsync("entry"));
    }

    [Fact]
    public async Task Sliding_expiry_is_renewed_by_reads_and_ends_after_a_quiet_window()
    {
        await using var silo = await ClockedSilo.StartAsync();
        await using var app = Provider(silo);
        var cache = app.GetRequiredService<IDistributedCache>();
        await cache.SetStringAsync("sliding", "kept", new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromSeconds(60) });

        silo.Advance(40_000);
        Assert.Equal("kept", await cache.GetStringAsync("sliding"));
        silo.Advance(40_000);
        Assert.Equal("kept", await cache.GetStringAsync("sliding"));
        silo.Advance(61_000);

        Assert.Null(await cache.GetStringAsync("sliding"));
    }

    [Fact]
    public async Task Absolute_expiry_ends_the_entry_however_often_it_is_read()
    {
        await using var silo = await ClockedSilo.StartAsync();
        await using var app = Provider(silo);
        var cache = app.GetRequiredService<IDistributedCache>();
        await cache.SetStringAsync("absolute", "brief", new DistributedCacheEntryOptions { AbsoluteExpirationRelativeToNow = TimeSpan.FromSeconds(60) });

        silo.Advance(30_000);
        Assert.Equal("brief", await cache.GetStringAsync("absolute"));
        silo.Advance(31_000);

        Assert.Null(await cache.GetStringAsync("absolute"));
    }

    [Fact]
    public async Task Hybrid_caches_of_two_apps_share_entries_through_the_silo()
    {
        await using var silo = await ClockedSilo.StartAsync();
        await using var first = Provider(silo, hybrid: true);
        await using var second = Provider(silo, hybrid: true);
        var factoryRuns = 0;

        var made = await first.GetRequiredService<HybridCache>().GetOrCreateAsync("report", _ => ValueTask.FromResult($"made {++factoryRuns}"));

        // HybridCache writes its second level in the background once the first caller has its value.
        await Poll.UntilAsync(async () => (await silo.CallAsync("EXISTS", "app:report")).Integer == 1, TimeSpan.FromSeconds(30), "the entry to reach the silo");
        var shared = await second.GetRequiredService<HybridCache>().GetOrCreateAsync("report", _ => ValueTask.FromResult($"made {++factoryRuns}"));

        Assert.Equal("made 1", made);
        Assert.Equal("made 1", shared);
        Assert.Equal(1, factoryRuns);
        Assert.Equal("hash", (await silo.CallAsync("TYPE", "app:report")).AsString());
    }

    private static ServiceProvider Provider(ClockedSilo silo, bool hybrid = false)
    {
        var services = new ServiceCollection();
        services.AddStackExchangeRedisCache(options =>
        {
            options.InstanceName = "app:";
            options.ConfigurationOptions = new ConfigurationOptions
            {
                EndPoints = { { "127.0.0.1", silo.Silo.RespEndPoint.Port } },
                AbortOnConnectFail = true,
                ConnectTimeout = 10_000,
            };
        });
        if (hybrid)
        {
            services.AddHybridCache();
        }

        return services.BuildServiceProvider();
    }
}
