using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Text;
using Cubby.Client;
using Cubby.Client.NearCaching;
using Cubby.Client.Shards;
using Cubby.Sharding;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Client;

/// <summary>
/// The near cache of a gateway client against a real silo: reads served in this process once kept, and dropped when
/// the key changes in any way: through another client, through the RESP door, by expiry or a flush, or by this client.
/// </summary>
public sealed class NearCacheTests
{
    [Fact]
    public async Task A_kept_read_is_served_in_process_without_a_call_to_the_silo()
    {
        await using var harness = await StartAsync();
        await harness.Client.PutAsync("hot", Utf8("v1"));
        var cache = await KeptAsync(harness.Client, "hot", "v1");
        var sent = Sent(harness.Client);
        var hits = cache.Metrics.Hits;

        for (var i = 0; i < 100; i++)
        {
            Assert.Equal("v1", Text(await harness.Client.GetAsync("hot")));
        }

        Assert.Equal(hits + 100, cache.Metrics.Hits);
        Assert.Equal(sent, Sent(harness.Client));
        Assert.InRange(cache.Bytes, 1, long.MaxValue);
    }

    [Fact]
    public async Task A_write_through_another_client_is_pushed_to_the_near_cache()
    {
        await using var harness = await StartAsync();
        await using var other = ClientHarness.GatewayApp(harness.Silo);
        var writer = other.GetRequiredService<ICubbyClient>();
        await harness.Client.PutAsync("shared", Utf8("v1"));
        var cache = await KeptAsync(harness.Client, "shared", "v1");
        var invalidations = cache.Metrics.Invalidations;

        await writer.PutAsync("shared", Utf8("v2"));

        Assert.Equal("v2", Text(await harness.Client.GetAsync("shared")));
        Assert.True(cache.Metrics.Invalidations > invalidations, "the silo pushed no invalidation");
    }

    [Fact]
    public async Task A_write_is_answered_only_once_every_near_cache_holding_the_key_dropped_it()
    {
        await using var harness = await StartAsync();
        await using var other = ClientHarness.GatewayApp(harness.Silo, configure: static o => o.NearCache.Enabled = true);
        var otherClient = other.GetRequiredService<ICubbyClient>();
        await harness.Client.PutAsync("settled", Utf8("v0"));

        // No polling after a write: the old value must be gone from both near caches when the write is answered.
        for (var i = 1; i <= 30; i++)
        {
            await KeptAsync(harness.Client, "settled", $"v{i - 1}");
            await KeptAsync(otherClient, "settled", $"v{i - 1}");
            if (i % 2 == 0)
            {
                await otherClient.PutAsync("settled", Utf8($"v{i}"));
            }
            else
            {
                RespAssert.Ok(await harness.Monitor.CallAsync("SET", "settled", $"v{i}"));
            }

            Assert.Equal($"v{i}", Text(await harness.Client.GetAsync("settled")));
            Assert.Equal($"v{i}", Text(await otherClient.GetAsync("settled")));
        }
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task A_write_waits_for_a_strict_near_cache_that_does_not_take_its_invalidation_only_until_its_lease_ends(bool changesWait)
    {
        await using var harness = await StartAsync();

        // A pushed near cache's lease is long: a write that waited for it would not be answered within the test's deadline.
        var term = changesWait ? TimeSpan.FromMilliseconds(600) : TimeSpan.FromMinutes(5);
        await using var stalled = await StallAsync(harness, "stalled", term, changesWait);

        await harness.Client.PutAsync("stalled", Utf8("v2")).AsTask().WaitAsync(TestDeadlines.Call);

        // Answered while the invalidation was still untaken; a strict reader's write not before its lease ran out.
        await stalled.Reader.Sent.WaitAsync(TestDeadlines.Call);
        Assert.False(stalled.Reader.Taken, "the stalled reader took its invalidation");
        if (changesWait)
        {
            Assert.True(stalled.Leased.Elapsed >= term, $"the write was answered {stalled.Leased.Elapsed} after the lease was given, inside its {term}");
        }

        Assert.Equal("v2", Text(await harness.Client.GetAsync("stalled")));
    }

    [Fact]
    public async Task A_flush_through_the_RESP_door_waits_for_a_strict_near_cache_as_a_write_does()
    {
        await using var harness = await StartAsync();
        var term = TimeSpan.FromMilliseconds(600);
        await using var stalled = await StallAsync(harness, "flushed", term, changesWait: true);

        // The flush empties the shard here, in its turn, without a grain call; its OK must still wait like a write's.
        RespAssert.Ok(await harness.Monitor.CallAsync("FLUSHALL").WaitAsync(TestDeadlines.Call));

        await stalled.Reader.Sent.WaitAsync(TestDeadlines.Call);
        Assert.False(stalled.Reader.Taken, "the stalled reader took its invalidation");
        Assert.True(stalled.Leased.Elapsed >= term, $"FLUSHALL was answered {stalled.Leased.Elapsed} after the lease was given, inside its {term}");
    }

    /// <summary>
    /// A second app's near cache that reads <paramref name="key"/> (stored as "v1") under a lease of <paramref name="term"/>
    /// and then stops taking invalidations until disposed.
    /// </summary>
    private static async Task<StalledNearCache> StallAsync(ClientHarness harness, string key, TimeSpan term, bool changesWait)
    {
        await harness.Client.PutAsync(key, Utf8("v1"));
        await KeptAsync(harness.Client, key, "v1");
        var app = ClientHarness.GatewayApp(harness.Silo);
        try
        {
            Assert.False(await app.GetRequiredService<ICubbyClient>().ExistsAsync("connects"));
            var grains = app.GetRequiredService<IClusterClient>();
            var stalled = new StalledReader();
            var reader = grains.CreateObjectReference<INearCacheReader>(stalled);
            var service = SiloBatches.ServiceAt(grains, Assert.IsType<CubbyClient>(harness.Client).Batches!.Batchers.Single().Gateway);
            var leased = Stopwatch.StartNew();
            await service.Renew(reader, new NearCacheTerms(term, changesWait));
            var read = await service.RunTracked([ShardOperation.TrackedGet(new ShardMap().SlotOf(key), Utf8(key), slide: false)], CallDeadline.None, reader);
            Assert.Equal("v1", Text(read[0].Entry?.Value));
            return new StalledNearCache(app, stalled, leased);
        }
        catch
        {
            await app.DisposeAsync();
            throw;
        }
    }

    [Fact]
    public async Task An_app_that_stops_tells_the_silo_so_writes_stop_waiting_for_its_near_cache()
    {
        await using var harness = await StartAsync();

        // An app host, as a web app has; its lease is far longer than the test's deadline: a write that waited for it
        // would fail the test.
        var builder = Host.CreateApplicationBuilder();
        builder.Services.AddCubbyClient(o =>
        {
            o.Endpoints.Add($"127.0.0.1:{harness.Silo.GatewayEndPoint.Port}");
            (o.NearCache.Enabled, o.NearCache.MaxStaleness) = (true, TimeSpan.FromMinutes(10));
        });
        using var app = builder.Build();
        await app.StartAsync();
        await harness.Client.PutAsync("closing", Utf8("v1"));
        await KeptAsync(app.Services.GetRequiredService<ICubbyClient>(), "closing", "v1");

        await app.StopAsync();

        await harness.Client.PutAsync("closing", Utf8("v2")).AsTask().WaitAsync(TestDeadlines.Call);
        Assert.Equal("v2", Text(await harness.Client.GetAsync("closing")));
    }

    [Fact]
    public async Task The_keys_a_stopped_app_read_stop_tracking_it_at_their_next_change()
    {
        await using var harness = await StartAsync();
        var keys = Enumerable.Range(0, 20).Select(static i => $"left:{i}").ToArray();
        foreach (var key in keys)
        {
            await harness.Client.PutAsync(key, Utf8("v1"));
        }

        var before = await SiloProbe.InfoAsync(harness.Monitor, "stats", "tracking_total_keys");
        var builder = Host.CreateApplicationBuilder();
        builder.Services.AddCubbyClient(o =>
        {
            o.Endpoints.Add($"127.0.0.1:{harness.Silo.GatewayEndPoint.Port}");
            o.NearCache.Enabled = true;
        });
        using var app = builder.Build();
        await app.StartAsync();
        var reader = app.Services.GetRequiredService<ICubbyClient>();
        foreach (var key in keys)
        {
            await KeptAsync(reader, key, "v1");
        }

        Assert.Equal(before + keys.Length, await SiloProbe.InfoAsync(harness.Monitor, "stats", "tracking_total_keys"));

        await app.StopAsync();
        foreach (var key in keys)
        {
            await harness.Client.PutAsync(key, Utf8("v2"));
        }

        // Tracked on, each key would be sent every later value for an app that is gone.
        Assert.Equal(before, await SiloProbe.InfoAsync(harness.Monitor, "stats", "tracking_total_keys"));
    }

    [Fact]
    public async Task A_pushed_near_cache_drops_a_changed_value_when_the_push_arrives()
    {
        await using var harness = await ClientHarness.StartAsync(configure: static o => (o.NearCache.Enabled, o.NearCache.Coherence) = (true, NearCacheCoherence.Pushed));
        await using var other = ClientHarness.GatewayApp(harness.Silo);
        var writer = other.GetRequiredService<ICubbyClient>();
        await harness.Client.PutAsync("pushed", Utf8("v1"));
        await KeptAsync(harness.Client, "pushed", "v1");

        await writer.PutAsync("pushed", Utf8("v2"));

        await Poll.UntilAsync(async () => Text(await harness.Client.GetAsync("pushed")) == "v2", TestDeadlines.Call, "the push to reach the near cache");
    }

    [Fact]
    public async Task Each_write_of_a_kept_key_is_pushed_once()
    {
        await using var harness = await StartAsync();
        await using var other = ClientHarness.GatewayApp(harness.Silo);
        var writer = other.GetRequiredService<ICubbyClient>();
        var keys = Enumerable.Range(0, 100).Select(static i => $"each:{i}").ToArray();
        foreach (var key in keys)
        {
            await harness.Client.PutAsync(key, Utf8("v1"));
            await KeptAsync(harness.Client, key, "v1");
        }

        var cache = Assert.IsType<CubbyClient>(harness.Client).NearCache!;
        var invalidations = cache.Metrics.Invalidations;
        foreach (var key in keys)
        {
            await writer.PutAsync(key, Utf8("v2"));
        }

        await Poll.UntilAsync(() => cache.Metrics.Invalidations - invalidations >= keys.Length, TestDeadlines.Call, "an invalidation for every write");
        foreach (var key in keys)
        {
            Assert.Equal("v2", Text(await harness.Client.GetAsync(key)));
        }

        Assert.Equal(keys.Length, cache.Metrics.Invalidations - invalidations);
    }

    [Theory]
    [InlineData("SET")]
    [InlineData("DEL")]
    [InlineData("RENAME")]
    [InlineData("APPEND")]
    [InlineData("PEXPIRE")]
    [InlineData("FLUSHALL")]
    [InlineData("MULTI")]
    [InlineData("COPY")]
    public async Task Any_change_through_the_RESP_door_drops_the_kept_value(string change)
    {
        await using var harness = await StartAsync();
        await harness.Client.PutAsync("door", Utf8("v1"));
        await KeptAsync(harness.Client, "door", "v1");
        string? expected = null;

        switch (change)
        {
            case "SET":
                RespAssert.Ok(await harness.Monitor.CallAsync("SET", "door", "v2"));
                expected = "v2";
                break;
            case "DEL":
                RespAssert.Integer(1, await harness.Monitor.CallAsync("DEL", "door"));
                break;
            case "RENAME":
                RespAssert.Ok(await harness.Monitor.CallAsync("RENAME", "door", "{door}moved"));
                break;
            case "APPEND":
                RespAssert.Integer(4, await harness.Monitor.CallAsync("APPEND", "door", "+a"));
                expected = "v1+a";
                break;
            case "PEXPIRE":
                RespAssert.Integer(1, await harness.Monitor.CallAsync("PEXPIRE", "door", "50"));
                break;
            case "FLUSHALL":
                RespAssert.Ok(await harness.Monitor.CallAsync("FLUSHALL"));
                break;
            case "COPY":
                RespAssert.Ok(await harness.Monitor.CallAsync("SET", "{door}source", "copied"));
                RespAssert.Integer(1, await harness.Monitor.CallAsync("COPY", "{door}source", "door", "REPLACE"));
                expected = "copied";
                break;
            case "MULTI":
                RespAssert.Ok(await harness.Monitor.CallAsync("MULTI"));
                await harness.Monitor.CallAsync("SET", "door", "v3");
                await harness.Monitor.CallAsync("EXEC");
                expected = "v3";
                break;
        }

        if (change == "PEXPIRE")
        {
            await Poll.UntilAsync(async () => await harness.Client.GetAsync("door") is null, TestDeadlines.Call, "the expiry to reach the near cache");
        }
        else
        {
            // Answered only once the near cache dropped the old value.
            Assert.Equal(expected, Text(await harness.Client.GetAsync("door")));
        }
    }

    [Fact]
    public async Task Callers_that_miss_one_key_together_share_one_read()
    {
        // Changes carry no values here, so the write below leaves every caller missing the key.
        await using var harness = await ClientHarness.StartAsync(configure: static o =>
        {
            o.NearCache.Enabled = true;
            o.NearCache.UpdateMaxBytes = 0;
        });
        await harness.Client.PutAsync("herd", Utf8("v1"));
        await KeptAsync(harness.Client, "herd", "v1");
        RespAssert.Ok(await harness.Monitor.CallAsync("SET", "herd", "v2"));
        await Poll.UntilAsync(() => Assert.IsType<CubbyClient>(harness.Client).NearCache!.Count == 0, TestDeadlines.Call, "the write's invalidation");
        var sent = Sent(harness.Client);

        var reads = await Task.WhenAll(Enumerable.Range(0, 64).Select(_ => harness.Client.GetAsync("herd").AsTask()));

        Assert.All(reads, static value => Assert.Equal("v2", Text(value)));
        Assert.InRange(Sent(harness.Client) - sent, 1, 2);
    }

    [Fact]
    public async Task A_kept_value_evicted_on_the_silo_is_dropped()
    {
        await using var harness = await ClientHarness.StartAsync(configure: static o => o.NearCache.Enabled = true, configureSilo: static o => o.MaxMemoryBytes = 4L << 20);
        await harness.Client.PutAsync("evicted", Utf8("v1"));
        var cache = await KeptAsync(harness.Client, "evicted", "v1");
        var invalidations = cache.Metrics.Invalidations;

        // Written well past the budget by another connection, so the kept key is evicted on the silo.
        var filler = new string('x', 16 * 1024);
        for (var i = 0; i < 1024 && await harness.Monitor.CallAsync("EXISTS", "evicted") is { Integer: 1 }; i++)
        {
            for (var j = 0; j < 64; j++)
            {
                await harness.Monitor.CallAsync("SET", $"filler:{i}:{j}", filler);
            }
        }

        RespAssert.Integer(0, await harness.Monitor.CallAsync("EXISTS", "evicted"));
        await Poll.UntilAsync(async () => await harness.Client.GetAsync("evicted") is null, TestDeadlines.Call, "the eviction to reach the near cache");
        Assert.True(cache.Metrics.Invalidations > invalidations, "the silo pushed no invalidation for the eviction");
    }

    [Fact]
    public async Task The_client_reads_its_own_writes_and_removals_at_once()
    {
        await using var harness = await StartAsync();
        await harness.Client.PutAsync("mine", Utf8("v0"));
        await KeptAsync(harness.Client, "mine", "v0");

        for (var i = 1; i <= 50; i++)
        {
            await harness.Client.PutAsync("mine", Utf8($"v{i}"));
            Assert.Equal($"v{i}", Text(await harness.Client.GetAsync("mine")));
            Assert.Equal($"v{i}", Text(await harness.Client.GetAsync("mine")));
        }

        await harness.Client.EvictAsync("mine");
        Assert.Null(await harness.Client.GetAsync("mine"));
        await harness.Client.PutManyAsync([KeyValuePair.Create("mine", (ReadOnlyMemory<byte>)Utf8("many"))]);
        Assert.Equal("many", Text(await harness.Client.GetAsync("mine")));
        await harness.Client.EvictManyAsync(["mine"]);
        Assert.Null(await harness.Client.GetAsync("mine"));
    }

    [Fact]
    public async Task The_distributed_cache_forms_are_served_from_the_near_cache_too()
    {
        await using var harness = await StartAsync();
        await harness.Cache.SetAsync("dc", Utf8("value"), new DistributedCacheEntryOptions());
        var cache = await KeptAsync(harness.Client, "dc", "value");
        var hits = cache.Metrics.Hits;

        Assert.Equal("value", Text(harness.Cache.Get("dc")));
        Assert.Equal("value", Text(await harness.Cache.GetAsync("dc")));
        var buffer = new System.Buffers.ArrayBufferWriter<byte>();
        Assert.True(await harness.BufferCache.TryGetAsync("dc", buffer));
        Assert.Equal("value", Encoding.UTF8.GetString(buffer.WrittenSpan));
        Assert.Equal("value", Text((await harness.Client.GetManyAsync(["dc"]))[0]));
        var entry = await harness.Client.GetEntryAsync("dc");
        Assert.Equal("value", Text(entry?.Value));
        Assert.Null(entry!.TimeToLive);

        Assert.Equal(hits + 5, cache.Metrics.Hits);
    }

    [Fact]
    public async Task A_sliding_entry_read_only_from_the_near_cache_stays_alive_on_the_silo()
    {
        await using var harness = await StartAsync();
        var window = TimeSpan.FromMilliseconds(1500);
        await harness.Client.PutAsync("sliding", Utf8("v"), CacheEntryOptions.Sliding(window));
        var cache = await KeptAsync(harness.Client, "sliding", "v");
        var hits = cache.Metrics.Hits;

        // Three windows of reads, every one of them from this process.
        var until = DateTime.UtcNow + (3 * window);
        var reads = 0;
        while (DateTime.UtcNow < until)
        {
            Assert.Equal("v", Text(await harness.Client.GetAsync("sliding")));
            reads++;
            await Task.Delay(20);
        }

        RespAssert.Integer(1, await harness.Monitor.CallAsync("EXISTS", "sliding"));
        Assert.True(cache.Metrics.Hits - hits > reads / 2, $"{cache.Metrics.Hits - hits} of {reads} reads were near-cache hits");
    }

    [Fact]
    public async Task The_instruments_are_published_on_the_client_meter()
    {
        var seen = new HashSet<string>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == NearCacheMetrics.MeterName)
            {
                lock (seen)
                {
                    seen.Add(instrument.Name);
                }
            }
        };
        listener.Start();

        await using var harness = await StartAsync();
        await harness.Client.PutAsync("metered", Utf8("v"));
        await KeptAsync(harness.Client, "metered", "v");

        lock (seen)
        {
            Assert.Superset(
                new HashSet<string> { "cubby.client.near_cache.hits", "cubby.client.near_cache.misses", "cubby.client.near_cache.invalidations", "cubby.client.near_cache.bytes" },
                seen);
        }
    }

    [Fact]
    public async Task The_settings_bind_from_configuration_and_bad_ones_stop_the_start()
    {
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Cubby:Client:Endpoints:0"] = "127.0.0.1:30000",
            ["Cubby:Client:NearCache:Enabled"] = "true",
            ["Cubby:Client:NearCache:MaxBytes"] = "1048576",
            ["Cubby:Client:NearCache:MaxStaleness"] = "00:00:00.500",
            ["Cubby:Client:NearCache:Coherence"] = "Pushed",
        }).Build();
        var services = new ServiceCollection().AddSingleton<IConfiguration>(configuration);
        services.AddCubbyClient();
        await using (var app = services.BuildServiceProvider())
        {
            var near = app.GetRequiredService<IOptions<CubbyClientOptions>>().Value.NearCache;
            Assert.True(near.Enabled);
            Assert.Equal(1048576, near.MaxBytes);
            Assert.Equal(TimeSpan.FromMilliseconds(500), near.MaxStaleness);
            Assert.Equal(NearCacheCoherence.Pushed, near.Coherence);
        }

        var failure = Assert.Throws<OptionsValidationException>(() => Validate(o =>
        {
            o.NearCache.Enabled = true;
            o.CoalesceCalls = false;
            o.NearCache.MaxStaleness = TimeSpan.FromMilliseconds(10);
            o.NearCache.MaxBytes = 0;
            o.NearCache.Coherence = (NearCacheCoherence)7;
        }));
        Assert.Contains("Cubby:Client:CoalesceCalls", failure.Message);
        Assert.Contains("Cubby:Client:NearCache:MaxStaleness must be at least 100 ms", failure.Message);
        Assert.Contains("Cubby:Client:NearCache:MaxBytes must be at least 1024", failure.Message);
        Assert.Contains("Cubby:Client:NearCache:Coherence must be Strict or Pushed (was 7)", failure.Message);

        // A process that runs Orleans itself sends no batches, so it cannot have a near cache.
        var builder = Host.CreateApplicationBuilder();
        builder.UseOrleansClient(client => client.UseLocalhostClustering());
        builder.Services.AddCubbyClient(o => o.NearCache.Enabled = true);
        using var host = builder.Build();
        var inProcess = Assert.Throws<OptionsValidationException>(() => host.Services.GetRequiredService<IOptions<CubbyClientOptions>>().Value);
        Assert.Contains("Cubby:Client:NearCache:Enabled needs the gateway client", inProcess.Message);
    }

    /// <summary>The app whose near cache stalled, its reader, and the time since its lease was given.</summary>
    private sealed record StalledNearCache(ServiceProvider App, StalledReader Reader, Stopwatch Leased) : IAsyncDisposable
    {
        public ValueTask DisposeAsync()
        {
            Reader.Release();
            return App.DisposeAsync();
        }
    }

    /// <summary>A near cache whose process stalls: it is sent invalidations and takes none until released.</summary>
    private sealed class StalledReader : INearCacheReader
    {
        private readonly TaskCompletionSource _released = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource _sent = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private volatile bool _taken;

        public Task Sent => _sent.Task;

        public bool Taken => _taken;

        public void Release() => _released.TrySetResult();

        public async Task<byte[][]?> Invalidated(long sequence, KeyInvalidation[] batch)
        {
            _sent.TrySetResult();
            await _released.Task;
            _taken = true;
            return null;
        }
    }

    private static CubbyClientOptions Validate(Action<CubbyClientOptions> configure)
    {
        var services = new ServiceCollection();
        services.AddCubbyClient(o =>
        {
            o.Endpoints.Add("127.0.0.1:30000");
            configure(o);
        });
        using var app = services.BuildServiceProvider();
        return app.GetRequiredService<IOptions<CubbyClientOptions>>().Value;
    }

    private static Task<ClientHarness> StartAsync() => ClientHarness.StartAsync(configure: static o => o.NearCache.Enabled = true);

    /// <summary>
    /// Reads <paramref name="key"/> until a read of <paramref name="expected"/> is served from the near cache (the first
    /// silo lease ends the reads before it; a change just acknowledged may still be on its way).
    /// </summary>
    internal static async Task<NearCache> KeptAsync(ICubbyClient client, string key, string expected)
    {
        var cache = Assert.IsType<CubbyClient>(client).NearCache;
        Assert.NotNull(cache);
        await Poll.UntilAsync(
            async () =>
            {
                var hits = cache.Metrics.Hits;
                return Text(await client.GetAsync(key)) == expected && cache.Metrics.Hits > hits;
            },
            TestDeadlines.Call,
            $"'{key}' to be served from the near cache");
        return cache;
    }

    private static long Sent(ICubbyClient client) => Assert.IsType<CubbyClient>(client).Batches!.Batchers.Sum(static batcher => batcher.OperationsSent);

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);

    private static string? Text(byte[]? value) => value is null ? null : Encoding.UTF8.GetString(value);
}
