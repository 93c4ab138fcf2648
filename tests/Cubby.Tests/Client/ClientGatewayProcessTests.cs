using System.Buffers;
using System.Diagnostics;
using System.Text;
using Cubby.Client;
using Cubby.Tests.Dashboard;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary>
/// Every <see cref="ICubbyClient"/> and <see cref="IDistributedCache"/> member through the gateways of two silo
/// processes, as a web app on another machine uses them: expiry on real time with margins, and 1,000 callers at once.
/// </summary>
public sealed class ClientGatewayProcessTests
{
    private const int SlotCount = 256;

    [Fact]
    public async Task Every_member_works_through_the_gateways_of_two_silo_processes()
    {
        using var cluster = await ProcessDevelopmentCluster.StartAsync(2);
        await using var app = App(cluster);
        var client = app.GetRequiredService<ICubbyClient>();
        var cache = app.GetRequiredService<IBufferDistributedCache>();

        Assert.Equal(WriteOutcome.Created, await client.PutAsync("bytes", "v1"u8.ToArray()));
        Assert.Equal(WriteOutcome.Updated, await client.PutAsync("bytes", "v2"u8.ToArray(), CacheEntryOptions.ExpiresIn(TimeSpan.FromMinutes(5))));
        Assert.Equal("v2"u8.ToArray(), await client.GetAsync("bytes"));
        var entry = await client.GetEntryAsync("bytes");
        Assert.Equal("v2"u8.ToArray(), entry!.Value);
        Assert.InRange(entry.TimeToLive!.Value, TimeSpan.FromMinutes(4), TimeSpan.FromMinutes(5));
        Assert.True(await client.ExistsAsync("bytes"));
        Assert.True(await client.RefreshAsync("bytes"));
        Assert.InRange((await client.GetTimeToLiveAsync("bytes"))!.Value, TimeSpan.FromMinutes(4), TimeSpan.FromMinutes(5));
        var owner = await client.GetOwnerAsync("bytes");
        Assert.Equal(new Sharding.ShardMap(SlotCount).SlotOf("bytes"), owner.Slot);
        Assert.Contains(owner.Silo, cluster.Silos.Select(silo => $"127.0.0.1:{silo.SiloPort}"));
        Assert.Equal(RemoveOutcome.Removed, await client.EvictAsync("bytes"));
        Assert.Equal(RemoveOutcome.NotFound, await client.EvictAsync("bytes"));
        Assert.Null(await client.GetAsync("bytes"));
        Assert.Null(await client.GetTimeToLiveAsync("bytes"));

        await client.PutObjectAsync("object", new Forecast("Oslo", DateTimeOffset.UnixEpoch, [1.5], null), new CacheEntryOptions { Flags = CacheEntryFlags.Compressed });
        Assert.Equal("Oslo", (await client.GetObjectAsync<Forecast>("object"))!.City);
        var runs = 0;
        Assert.Equal(7, await client.GetOrCreateAsync("created", _ => ValueTask.FromResult(++runs * 7)));
        Assert.Equal(7, await client.GetOrCreateAsync("created", _ => ValueTask.FromResult(++runs * 7)));
        Assert.Equal(1, runs);

        var keys = Enumerable.Range(0, 40).Select(i => $"many:{i}").ToArray();
        var written = await client.PutManyAsync([.. keys.Select(key => new KeyValuePair<string, ReadOnlyMemory<byte>>(key, Encoding.UTF8.GetBytes(key)))]);
        Assert.All(written, outcome => Assert.Equal(WriteOutcome.Created, outcome));
        var read = await client.GetManyAsync([.. keys, "many:absent"]);
        Assert.Equal(keys.Select(Encoding.UTF8.GetBytes), read.Take(keys.Length));
        Assert.Null(read[^1]);
        Assert.Equal(keys.Length, await client.EvictManyAsync([.. keys, "many:absent"]));

        cache.Set("sync", [1, 2], new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromMinutes(1) });
        Assert.Equal([1, 2], cache.Get("sync"));
        cache.Refresh("sync");
        var destination = new ArrayBufferWriter<byte>();
        Assert.True(cache.TryGet("sync", destination));
        Assert.Equal([1, 2], destination.WrittenSpan.ToArray());
        cache.Remove("sync");
        Assert.Null(cache.Get("sync"));
        await cache.SetAsync("async", new ReadOnlySequence<byte>([3, 4]), new DistributedCacheEntryOptions());
        Assert.Equal([3, 4], await cache.GetAsync("async"));
        await cache.RefreshAsync("async");
        Assert.True(await cache.TryGetAsync("async", destination));
        await cache.RemoveAsync("async");
        Assert.False(await cache.TryGetAsync("async", destination));
    }

    [Fact]
    public async Task Expiry_holds_on_real_time_through_the_gateway()
    {
        using var cluster = await ProcessDevelopmentCluster.StartAsync(1);
        await using var app = App(cluster);
        var client = app.GetRequiredService<ICubbyClient>();
        var cache = app.GetRequiredService<IDistributedCache>();

        // The read follows the write at once; on a loaded machine even that can take longer than the TTL, so the
        // value is required only when it came back in time.
        var written = Stopwatch.StartNew();
        await client.PutAsync("relative", new byte[] { 1 }, CacheEntryOptions.ExpiresIn(TimeSpan.FromSeconds(2)));
        var fresh = await client.GetAsync("relative");
        Assert.True(fresh is not null || written.Elapsed >= TimeSpan.FromSeconds(2), $"the entry was gone {written.Elapsed} after its 2 s TTL began");
        await cache.SetAsync("sliding", [2], new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromSeconds(3) });

        // Read every 500 ms for 5 s: the 3 s window keeps sliding, while the 2 s entry expires.
        var until = DateTime.UtcNow + TimeSpan.FromSeconds(5);
        while (DateTime.UtcNow < until)
        {
            Assert.Equal([2], await cache.GetAsync("sliding"));
            await Task.Delay(500);
        }

        Assert.Null(await client.GetAsync("relative"));

        // Left unread, it expires a window later (margins for a loaded machine).
        await Poll.UntilAsync(async () => await client.GetTimeToLiveAsync("sliding") is null, TestDeadlines.Phase, "the sliding entry to expire");
    }

    [Fact]
    public async Task A_thousand_concurrent_callers_each_get_their_own_values()
    {
        using var cluster = await ProcessDevelopmentCluster.StartAsync(2);
        await using var app = App(cluster);
        var client = app.GetRequiredService<ICubbyClient>();
        var start = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        var callers = Enumerable.Range(0, 1000).Select(async i =>
        {
            await start.Task;
            var value = Encoding.UTF8.GetBytes($"caller {i}");
            await client.PutAsync($"caller:{i}", value);
            return (Expected: value, Read: await client.GetAsync($"caller:{i}"));
        }).ToArray();
        start.SetResult();
        var results = await Task.WhenAll(callers).WaitAsync(TestDeadlines.Phase);

        Assert.All(results, result => Assert.Equal(result.Expected, result.Read));
        var all = await client.GetManyAsync([.. Enumerable.Range(0, 1000).Select(i => $"caller:{i}")]);
        Assert.Equal(1000, all.Count(value => value is not null));
    }

    private static ServiceProvider App(ProcessDevelopmentCluster cluster)
    {
        var services = new ServiceCollection();
        services.AddCubbyClient(o =>
        {
            foreach (var silo in cluster.Silos)
            {
                o.Endpoints.Add(silo.Gateway);
            }

            o.SlotCount = SlotCount;
        }).AddCubbyDistributedCache();
        return services.BuildServiceProvider();
    }
}
