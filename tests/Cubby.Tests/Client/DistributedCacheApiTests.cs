using System.Buffers;
using Cubby.Client;
using Cubby.Tests.Infrastructure;
using Cubby.Tests.Resp;
using Microsoft.Extensions.Caching.Distributed;

namespace Cubby.Tests.Client;

/// <summary>Every <see cref="IDistributedCache"/> and <see cref="IBufferDistributedCache"/> member, sync and async, in RESP2 and RESP3.</summary>
public sealed class DistributedCacheApiTests
{
    private static readonly DistributedCacheEntryOptions NoExpiry = new();

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task Set_and_Get_round_trip_sync_and_async(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var cache = harness.Cache;

        cache.Set("sync", [1, 2, 3], NoExpiry);
        await cache.SetAsync("async", [4, 5], NoExpiry);

        Assert.Equal([1, 2, 3], cache.Get("sync"));
        Assert.Equal([1, 2, 3], await cache.GetAsync("sync"));
        Assert.Equal([4, 5], cache.Get("async"));
        Assert.Equal([4, 5], await cache.GetAsync("async"));
        Assert.Null(cache.Get("missing"));
        Assert.Null(await cache.GetAsync("missing"));

        cache.Set("sync", [9], NoExpiry);
        Assert.Equal([9], await cache.GetAsync("sync"));
        cache.Set("empty", [], NoExpiry);
        Assert.Equal(Array.Empty<byte>(), cache.Get("empty"));

        // The cache and the client are views of the same entries.
        Assert.Equal([4, 5], await harness.Client.GetAsync("async"));
        await harness.Client.PutAsync("from-client", "c"u8.ToArray());
        Assert.Equal("c"u8.ToArray(), cache.Get("from-client"));
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task Remove_and_RemoveAsync_delete_and_tolerate_a_missing_key(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var cache = harness.Cache;
        cache.Set("a", [1], NoExpiry);
        cache.Set("b", [2], NoExpiry);

        cache.Remove("a");
        await cache.RemoveAsync("b");
        cache.Remove("a");
        await cache.RemoveAsync("never");

        Assert.Null(cache.Get("a"));
        Assert.Null(await cache.GetAsync("b"));
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "a"));
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "b"));
    }

    [Fact]
    public async Task Refresh_and_RefreshAsync_slide_the_window_without_creating_missing_keys()
    {
        var time = new FakeTimeProvider();
        await using var harness = await ClientHarness.StartAsync(time: time);
        var cache = harness.Cache;
        cache.Set("session", [7], new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromSeconds(10) });

        time.Advance(TimeSpan.FromSeconds(6));
        cache.Refresh("session");
        Assert.Equal(TimeSpan.FromSeconds(10), await harness.Client.GetTimeToLiveAsync("session"));
        time.Advance(TimeSpan.FromSeconds(6));
        await cache.RefreshAsync("session");
        Assert.Equal(TimeSpan.FromSeconds(10), await harness.Client.GetTimeToLiveAsync("session"));

        cache.Refresh("missing");
        await cache.RefreshAsync("missing");
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "missing"));
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task TryGet_and_TryGetAsync_write_the_value_to_the_destination(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var cache = harness.BufferCache;
        var value = new byte[100_000];
        new Random(7).NextBytes(value);
        cache.Set("k", value, NoExpiry);

        var sync = new ArrayBufferWriter<byte>();
        Assert.True(cache.TryGet("k", sync));
        Assert.Equal(value, sync.WrittenSpan.ToArray());

        var async = new ArrayBufferWriter<byte>();
        async.Write("prefix"u8);
        Assert.True(await cache.TryGetAsync("k", async));
        Assert.Equal([.. "prefix"u8, .. value], async.WrittenSpan.ToArray());

        var missing = new ArrayBufferWriter<byte>();
        Assert.False(cache.TryGet("missing", missing));
        Assert.False(await cache.TryGetAsync("missing", missing));
        Assert.Equal(0, missing.WrittenCount);
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task TryGet_decompresses_a_value_stored_Compressed(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var original = new byte[50_000];
        Array.Fill(original, (byte)'z');
        await harness.Client.PutAsync("packed", original, new CacheEntryOptions { Flags = CacheEntryFlags.Compressed });

        var sync = new ArrayBufferWriter<byte>();
        Assert.True(harness.BufferCache.TryGet("packed", sync));
        Assert.Equal(original, sync.WrittenSpan.ToArray());
        var async = new ArrayBufferWriter<byte>();
        Assert.True(await harness.BufferCache.TryGetAsync("packed", async));
        Assert.Equal(original, async.WrittenSpan.ToArray());
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task Set_and_SetAsync_of_a_multi_segment_sequence_store_the_bytes_in_order(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var cache = harness.BufferCache;
        var value = new byte[70_000];
        new Random(3).NextBytes(value);

        cache.Set("sync", Sequences.Split(value, 1, 2, 4096, 65_536), NoExpiry);
        await cache.SetAsync("async", Sequences.Split(value, 10, 20, 30, 69_999), NoExpiry);
        await cache.SetAsync("one-segment", new ReadOnlySequence<byte>(value), new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromMinutes(1) });

        Assert.Equal(value, harness.Cache.Get("sync"));
        Assert.Equal(value, await harness.Cache.GetAsync("async"));
        Assert.Equal(value, await harness.Client.GetAsync("one-segment"));
        Assert.Equal(value, (await SiloProbe.RawEntryAsync(harness.Monitor, "async")).Value);
    }
}
