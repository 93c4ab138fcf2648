using Cubby.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;

namespace Cubby.Tests.Client;

/// <summary>Expiry as the client resolves it and the silo applies it, with silo and client on one fake clock.</summary>
public sealed class ClientExpiryTests
{
    private static readonly TimeSpan Window = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task A_relative_expiry_wins_over_an_absolute_one_either_way_round()
    {
        var time = new FakeTimeProvider();
        await using var harness = await ClientHarness.StartAsync(time: time);
        var now = time.GetUtcNow();

        await harness.Client.PutAsync("later-absolute", new byte[] { 1 }, new CacheEntryOptions { AbsoluteExpiration = now.AddSeconds(60), AbsoluteExpirationRelativeToNow = TimeSpan.FromSeconds(5) });
        await harness.Client.PutAsync("sooner-absolute", new byte[] { 1 }, new CacheEntryOptions { AbsoluteExpiration = now.AddSeconds(2), AbsoluteExpirationRelativeToNow = TimeSpan.FromSeconds(5) });
        harness.Cache.Set("cache", [1], new DistributedCacheEntryOptions { AbsoluteExpiration = now.AddSeconds(60), AbsoluteExpirationRelativeToNow = TimeSpan.FromSeconds(5) });

        foreach (var key in (string[])["later-absolute", "sooner-absolute", "cache"])
        {
            Assert.Equal(TimeSpan.FromSeconds(5), await harness.Client.GetTimeToLiveAsync(key));
        }

        // A past absolute expiry is ignored when a relative one is given.
        await harness.Client.PutAsync("past-absolute", new byte[] { 1 }, new CacheEntryOptions { AbsoluteExpiration = now.AddSeconds(-1), AbsoluteExpirationRelativeToNow = TimeSpan.FromSeconds(5) });
        Assert.Equal(TimeSpan.FromSeconds(5), await harness.Client.GetTimeToLiveAsync("past-absolute"));
    }

    [Fact]
    public async Task An_absolute_expiry_not_in_the_future_throws_and_sends_nothing()
    {
        var time = new FakeTimeProvider();
        await using var harness = await ClientHarness.StartAsync(time: time);
        await harness.WarmUpAsync();
        var past = time.GetUtcNow().AddMilliseconds(-1);
        var now = time.GetUtcNow();
        var pastOptions = new DistributedCacheEntryOptions { AbsoluteExpiration = past };

        var sent = await harness.Silo.ShardCalls.CallsDuringAsync(async () =>
        {
            var thrown = new List<ArgumentOutOfRangeException>
            {
                await Assert.ThrowsAsync<ArgumentOutOfRangeException>(async () => await harness.Client.PutAsync("k", new byte[] { 1 }, CacheEntryOptions.ExpiresAt(past))),
                await Assert.ThrowsAsync<ArgumentOutOfRangeException>(async () => await harness.Client.PutAsync("k", new byte[] { 1 }, CacheEntryOptions.ExpiresAt(now))),
                await Assert.ThrowsAsync<ArgumentOutOfRangeException>(async () => await harness.Client.PutObjectAsync("k", 1, CacheEntryOptions.ExpiresAt(past))),
                Assert.Throws<ArgumentOutOfRangeException>(() => harness.Cache.Set("k", [1], pastOptions)),
                await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => harness.Cache.SetAsync("k", [1], pastOptions)),
                Assert.Throws<ArgumentOutOfRangeException>(() => harness.BufferCache.Set("k", new System.Buffers.ReadOnlySequence<byte>([1]), pastOptions)),
                await Assert.ThrowsAsync<ArgumentOutOfRangeException>(async () => await harness.BufferCache.SetAsync("k", new System.Buffers.ReadOnlySequence<byte>([1]), pastOptions)),
            };
            Assert.All(thrown, e => Assert.Equal(nameof(CacheEntryOptions.AbsoluteExpiration), e.ParamName));
        });

        Assert.Equal(0, sent);
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "k"));
    }

    [Fact]
    public async Task A_relative_or_sliding_expiry_that_is_not_positive_throws_and_sends_nothing()
    {
        await using var harness = await ClientHarness.StartAsync();
        await harness.WarmUpAsync();
        var client = harness.Client;
        var sent = await harness.Silo.ShardCalls.CallsDuringAsync(async () =>
        {
            foreach (var bad in (TimeSpan[])[TimeSpan.Zero, TimeSpan.FromTicks(-1), TimeSpan.FromSeconds(-5)])
            {
                var relative = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(async () => await client.PutAsync("k", new byte[] { 1 }, CacheEntryOptions.ExpiresIn(bad)));
                Assert.Equal(nameof(CacheEntryOptions.AbsoluteExpirationRelativeToNow), relative.ParamName);
                var sliding = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(async () => await client.PutAsync("k", new byte[] { 1 }, CacheEntryOptions.Sliding(bad)));
                Assert.Equal(nameof(CacheEntryOptions.SlidingExpiration), sliding.ParamName);
                await Assert.ThrowsAsync<ArgumentOutOfRangeException>(async () => await client.PutObjectAsync("k", "v", CacheEntryOptions.Sliding(bad)));
            }
        });

        Assert.Equal(0, sent);
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "k"));

        // GetOrCreateAsync checks the options when it stores the result: the caller sees the error, nothing is stored.
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(async () =>
            await client.GetOrCreateAsync("k", _ => ValueTask.FromResult(1), CacheEntryOptions.ExpiresIn(TimeSpan.Zero)));
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "k"));
    }

    [Fact]
    public async Task A_positive_expiry_shorter_than_a_millisecond_is_stored_and_expires_within_a_millisecond()
    {
        var time = new FakeTimeProvider();
        await using var harness = await ClientHarness.StartAsync(time: time);
        var now = time.GetUtcNow();

        Assert.Equal(WriteOutcome.Created, await harness.Client.PutAsync("relative", new byte[] { 1 }, CacheEntryOptions.ExpiresIn(TimeSpan.FromTicks(1))));
        Assert.Equal(WriteOutcome.Created, await harness.Client.PutAsync("absolute", new byte[] { 1 }, CacheEntryOptions.ExpiresAt(now.AddTicks(5_000))));
        await harness.Cache.SetAsync("cache", [1], new DistributedCacheEntryOptions { AbsoluteExpirationRelativeToNow = TimeSpan.FromTicks(9_999) });
        Assert.Equal(WriteOutcome.Created, await harness.Client.PutAsync("sliding", new byte[] { 1 }, CacheEntryOptions.Sliding(TimeSpan.FromTicks(1))));

        foreach (var key in (string[])["relative", "absolute", "cache", "sliding"])
        {
            Assert.Equal(TimeSpan.FromMilliseconds(1), await harness.Client.GetTimeToLiveAsync(key));
        }

        time.Advance(TimeSpan.FromMilliseconds(1));
        foreach (var key in (string[])["relative", "absolute", "cache", "sliding"])
        {
            Assert.Null(await harness.Client.GetAsync(key));
        }
    }

    [Fact]
    public async Task A_sliding_entry_lives_while_it_is_read_and_expires_a_window_after_the_last_read()
    {
        var time = new FakeTimeProvider();
        await using var harness = await ClientHarness.StartAsync(time: time);
        var client = harness.Client;
        await client.PutAsync("read", "r"u8.ToArray(), CacheEntryOptions.Sliding(Window));
        harness.Cache.Set("cache-read", [2], new DistributedCacheEntryOptions { SlidingExpiration = Window });

        for (var i = 0; i < 6; i++)
        {
            time.Advance(Window * 0.9);
            Assert.Equal("r"u8.ToArray(), await client.GetAsync("read"));
            Assert.Equal([2], i % 2 == 0 ? harness.Cache.Get("cache-read") : await harness.Cache.GetAsync("cache-read"));
        }

        // GetEntryAsync renews too, and reports the renewed time to live.
        time.Advance(Window * 0.9);
        Assert.Equal(Window, (await client.GetEntryAsync("read"))!.TimeToLive);

        // Neither Exists nor the time-to-live query renews: the entry is gone a window after the last read, to the ms.
        time.Advance(Window - TimeSpan.FromMilliseconds(1));
        Assert.True(await client.ExistsAsync("read"));
        Assert.Equal(TimeSpan.FromMilliseconds(1), await client.GetTimeToLiveAsync("read"));
        time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.False(await client.ExistsAsync("read"));
        Assert.Null(await client.GetAsync("read"));

        time.Advance(Window);
        Assert.Null(harness.Cache.Get("cache-read"));
    }

    [Fact]
    public async Task Refresh_slides_the_window_without_returning_the_value()
    {
        var time = new FakeTimeProvider();
        await using var harness = await ClientHarness.StartAsync(time: time);
        var client = harness.Client;
        await client.PutAsync("refreshed", new byte[] { 1 }, CacheEntryOptions.Sliding(Window));

        for (var i = 0; i < 6; i++)
        {
            time.Advance(Window * 0.9);
            switch (i % 3)
            {
                case 0:
                    Assert.True(await client.RefreshAsync("refreshed"));
                    break;
                case 1:
                    harness.Cache.Refresh("refreshed");
                    break;
                default:
                    await harness.Cache.RefreshAsync("refreshed");
                    break;
            }

            Assert.Equal(Window, await client.GetTimeToLiveAsync("refreshed"));
        }

        time.Advance(Window);
        Assert.False(await client.RefreshAsync("refreshed"));
        Assert.Null(await client.GetAsync("refreshed"));
    }

    [Fact]
    public async Task A_sliding_window_never_extends_past_the_absolute_expiry()
    {
        var time = new FakeTimeProvider();
        await using var harness = await ClientHarness.StartAsync(time: time);
        var client = harness.Client;
        var deadline = time.GetUtcNow().AddSeconds(23);
        await client.PutAsync("capped", new byte[] { 1 }, new CacheEntryOptions { SlidingExpiration = Window, AbsoluteExpiration = deadline });
        harness.Cache.Set("cache-capped", [2], new DistributedCacheEntryOptions { SlidingExpiration = Window, AbsoluteExpirationRelativeToNow = TimeSpan.FromSeconds(23) });

        // Read every half window: always renewed, until the deadline caps the window.
        var reads = 0;
        while (time.GetUtcNow() + Window * 0.5 < deadline)
        {
            time.Advance(Window * 0.5);
            Assert.Equal([1], await client.GetAsync("capped"));
            Assert.Equal([2], harness.Cache.Get("cache-capped"));
            reads++;
        }

        Assert.Equal(4, reads);
        Assert.Equal(TimeSpan.FromSeconds(3), await client.GetTimeToLiveAsync("capped"));
        Assert.Equal(TimeSpan.FromSeconds(3), (await client.GetEntryAsync("cache-capped"))!.TimeToLive);

        time.SetUtcNow(deadline.AddMilliseconds(-1));
        Assert.Equal([1], await client.GetAsync("capped"));
        Assert.True(await client.RefreshAsync("cache-capped"));
        Assert.Equal(TimeSpan.FromMilliseconds(1), await client.GetTimeToLiveAsync("capped"));

        time.SetUtcNow(deadline);
        Assert.Null(await client.GetAsync("capped"));
        Assert.Null(harness.Cache.Get("cache-capped"));
    }

    [Fact]
    public async Task Expiry_is_exact_to_the_millisecond()
    {
        var time = new FakeTimeProvider();
        await using var harness = await ClientHarness.StartAsync(time: time);
        var client = harness.Client;
        await client.PutAsync("relative", new byte[] { 1 }, CacheEntryOptions.ExpiresIn(TimeSpan.FromMilliseconds(1_234)));
        await client.PutAsync("absolute", new byte[] { 1 }, CacheEntryOptions.ExpiresAt(time.GetUtcNow().AddMilliseconds(777)));
        await client.PutAsync("sliding", new byte[] { 1 }, CacheEntryOptions.Sliding(TimeSpan.FromMilliseconds(250)));
        await harness.Cache.SetAsync("cache", [1], new DistributedCacheEntryOptions { AbsoluteExpirationRelativeToNow = TimeSpan.FromMilliseconds(1_001) });

        Assert.Equal(TimeSpan.FromMilliseconds(1_234), await client.GetTimeToLiveAsync("relative"));
        Assert.Equal(TimeSpan.FromMilliseconds(777), await client.GetTimeToLiveAsync("absolute"));
        Assert.Equal(TimeSpan.FromMilliseconds(250), await client.GetTimeToLiveAsync("sliding"));
        Assert.Equal(TimeSpan.FromMilliseconds(1_001), await client.GetTimeToLiveAsync("cache"));

        time.Advance(TimeSpan.FromMilliseconds(249));
        Assert.Equal(TimeSpan.FromMilliseconds(1), await client.GetTimeToLiveAsync("sliding"));
        Assert.Equal(TimeSpan.FromMilliseconds(250), (await client.GetEntryAsync("sliding"))!.TimeToLive);
        Assert.Equal(TimeSpan.FromMilliseconds(250), await client.GetTimeToLiveAsync("sliding"));
        Assert.Equal(TimeSpan.FromMilliseconds(985), await client.GetTimeToLiveAsync("relative"));

        time.Advance(TimeSpan.FromMilliseconds(527));
        Assert.Equal(TimeSpan.FromMilliseconds(1), await client.GetTimeToLiveAsync("absolute"));
        time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.Null(await client.GetTimeToLiveAsync("absolute"));
        Assert.Null(await client.GetAsync("sliding"));

        time.Advance(TimeSpan.FromMilliseconds(1_001 - 777 - 1));
        Assert.Equal([1], await harness.Cache.GetAsync("cache"));
        time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.Null(await harness.Cache.GetAsync("cache"));
        Assert.Equal(TimeSpan.FromMilliseconds(1_234 - 1_001), await client.GetTimeToLiveAsync("relative"));
    }
}
