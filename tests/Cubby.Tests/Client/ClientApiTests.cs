using System.Text;
using System.Text.Json;
using Cubby.Client;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Client;

/// <summary>
/// Every <see cref="ICubbyClient"/> member end to end against an in-process silo, through its Orleans gateway and from
/// inside its host; a RESP connection only looks at what the client stored.
/// </summary>
public sealed class ClientApiTests
{
    private static readonly Forecast Oslo = new("Oslo", new DateTimeOffset(2026, 3, 1, 6, 0, 0, TimeSpan.FromHours(1)), [-3.5, -2, 0.25, 1.75], null);

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task The_client_calls_the_shard_grains_and_never_opens_a_RESP_connection(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var calls = await harness.Silo.ShardCalls.CallsDuringAsync(async () =>
        {
            await harness.Client.PutAsync("grain-only", "v"u8.ToArray());
            Assert.Equal("v"u8.ToArray(), await harness.Client.GetAsync("grain-only"));
            Assert.Equal("v"u8.ToArray(), await harness.Cache.GetAsync("grain-only"));
        });

        // One shard call per operation, and the monitor is the RESP port's only client.
        Assert.Equal(3, calls);
        Assert.Empty(await SiloProbe.OtherClientsAsync(harness.Monitor));
        RespAssert.Bulk("v", await harness.Monitor.CallAsync("GET", "grain-only"));
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task PutAsync_reports_Created_then_Updated_and_GetAsync_reads_the_latest_bytes(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var client = harness.Client;
        byte[] binary = [.. Enumerable.Range(0, 256).Select(i => (byte)i), .. "\r\n$-1\r\n*3\r\n"u8];

        Assert.Equal(WriteOutcome.Created, await client.PutAsync("bytes", "first"u8.ToArray()));
        Assert.Equal("first"u8.ToArray(), await client.GetAsync("bytes"));
        Assert.Equal(WriteOutcome.Updated, await client.PutAsync("bytes", binary));
        Assert.Equal(binary, await client.GetAsync("bytes"));
        Assert.Null(await client.GetAsync("never-written"));

        // An empty value is a value, not a miss.
        Assert.Equal(WriteOutcome.Created, await client.PutAsync("empty", ReadOnlyMemory<byte>.Empty));
        Assert.Equal(Array.Empty<byte>(), await client.GetAsync("empty"));

        // Keys are UTF-8 on the wire: the silo sees the same key a Redis client would.
        Assert.Equal(WriteOutcome.Created, await client.PutAsync("ключ:ü:🔑", "unicode"u8.ToArray()));
        RespAssert.Bulk("unicode", await harness.Monitor.CallAsync("GET", Encoding.UTF8.GetBytes("ключ:ü:🔑")));
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task A_multi_megabyte_value_round_trips_intact(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var value = new byte[3 * 1024 * 1024 + 17];
        new Random(42).NextBytes(value);

        Assert.Equal(WriteOutcome.Created, await harness.Client.PutAsync("big", value));

        Assert.Equal(value, await harness.Client.GetAsync("big"));
        Assert.Equal(value, (await harness.Client.GetEntryAsync("big"))!.Value);
    }

    [Fact]
    public async Task GetEntryAsync_returns_value_flags_and_time_to_live()
    {
        var time = new FakeTimeProvider();
        await using var harness = await ClientHarness.StartAsync(time: time);
        var client = harness.Client;
        await client.PutAsync("plain", "v"u8.ToArray());
        await client.PutAsync("expiring", "e"u8.ToArray(), CacheEntryOptions.ExpiresIn(TimeSpan.FromMilliseconds(90_250)));

        var plain = await client.GetEntryAsync("plain");
        Assert.NotNull(plain);
        Assert.Equal("v"u8.ToArray(), plain.Value);
        Assert.Equal(CacheEntryFlags.None, plain.Flags);
        Assert.Null(plain.TimeToLive);

        time.Advance(TimeSpan.FromMilliseconds(250));
        var expiring = await client.GetEntryAsync("expiring");
        Assert.NotNull(expiring);
        Assert.Equal("e"u8.ToArray(), expiring.Value);
        Assert.Equal(TimeSpan.FromSeconds(90), expiring.TimeToLive);

        Assert.Null(await client.GetEntryAsync("missing"));
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task ExistsAsync_RefreshAsync_and_EvictAsync_report_whether_the_entry_was_there(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var client = harness.Client;
        await client.PutAsync("here", "v"u8.ToArray());

        Assert.True(await client.ExistsAsync("here"));
        Assert.False(await client.ExistsAsync("absent"));
        Assert.True(await client.RefreshAsync("here"));
        Assert.False(await client.RefreshAsync("absent"));
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "absent"));

        Assert.Equal(RemoveOutcome.Removed, await client.EvictAsync("here"));
        Assert.Equal(RemoveOutcome.NotFound, await client.EvictAsync("here"));
        Assert.Equal(RemoveOutcome.NotFound, await client.EvictAsync("absent"));
        Assert.False(await client.ExistsAsync("here"));
        Assert.Null(await client.GetAsync("here"));
    }

    [Fact]
    public async Task GetTimeToLiveAsync_is_null_when_missing_infinite_without_expiry_and_exact_with_one()
    {
        var time = new FakeTimeProvider();
        await using var harness = await ClientHarness.StartAsync(time: time);
        var client = harness.Client;
        await client.PutAsync("forever", "v"u8.ToArray());
        await client.PutAsync("soon", "v"u8.ToArray(), CacheEntryOptions.ExpiresAt(time.GetUtcNow().AddMilliseconds(4321)));

        Assert.Null(await client.GetTimeToLiveAsync("missing"));
        Assert.Equal(Timeout.InfiniteTimeSpan, await client.GetTimeToLiveAsync("forever"));
        Assert.Equal(TimeSpan.FromMilliseconds(4321), await client.GetTimeToLiveAsync("soon"));

        time.Advance(TimeSpan.FromMilliseconds(4320));
        Assert.Equal(TimeSpan.FromMilliseconds(1), await client.GetTimeToLiveAsync("soon"));
        time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.Null(await client.GetTimeToLiveAsync("soon"));
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task PutObjectAsync_and_GetObjectAsync_round_trip_a_record_as_web_style_json(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var client = harness.Client;

        Assert.Equal(WriteOutcome.Created, await client.PutObjectAsync("forecast", Oslo));
        Assert.Equal(WriteOutcome.Updated, await client.PutObjectAsync("forecast", Oslo with { Warning = "ice" }));

        var read = await client.GetObjectAsync<Forecast>("forecast");
        Assert.NotNull(read);
        Assert.True(read.Matches(Oslo with { Warning = "ice" }), $"read back {read}");
        Assert.Null(await client.GetObjectAsync<Forecast>("missing"));
        Assert.Equal(0, await client.GetObjectAsync<int>("missing"));

        // Stored as plain JSON (web defaults: camelCase), readable by any client.
        using var json = JsonDocument.Parse((await SiloProbe.RawEntryAsync(harness.Monitor, "forecast")).Value);
        Assert.Equal("Oslo", json.RootElement.GetProperty("city").GetString());
        Assert.Equal(4, json.RootElement.GetProperty("hourlyCelsius").GetArrayLength());
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task A_source_generated_json_context_serializes_objects(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(
            route,
            configure: o => o.JsonSerializerOptions = new JsonSerializerOptions { TypeInfoResolver = ForecastJsonContext.Default });
        var client = harness.Client;

        Assert.Equal(WriteOutcome.Created, await client.PutObjectAsync("forecast", Oslo));
        var read = await client.GetObjectAsync<Forecast>("forecast");
        Assert.NotNull(read);
        Assert.True(read.Matches(Oslo), $"read back {read}");

        // The context is the only resolver: a type it does not know is refused, not serialized by reflection,
        // and nothing is stored.
        await Assert.ThrowsAnyAsync<NotSupportedException>(async () => await client.PutObjectAsync("unknown", new Uri("https://example.com")));
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "unknown"));
    }

    [Fact]
    public async Task GetOrCreateAsync_runs_the_factory_only_on_a_miss_and_stores_its_result()
    {
        var time = new FakeTimeProvider();
        await using var harness = await ClientHarness.StartAsync(time: time);
        var client = harness.Client;
        var runs = 0;
        ValueTask<Forecast> Factory(CancellationToken token)
        {
            Interlocked.Increment(ref runs);
            return ValueTask.FromResult(Oslo);
        }

        var created = await client.GetOrCreateAsync("forecast", Factory, CacheEntryOptions.ExpiresIn(TimeSpan.FromMinutes(5)));
        Assert.True(created.Matches(Oslo));
        Assert.Equal(1, runs);
        Assert.Equal(TimeSpan.FromMinutes(5), await client.GetTimeToLiveAsync("forecast"));
        Assert.True((await client.GetObjectAsync<Forecast>("forecast"))!.Matches(Oslo));

        var cached = await client.GetOrCreateAsync("forecast", Factory);
        Assert.True(cached.Matches(Oslo));
        Assert.Equal(1, runs);

        // A value another client stored is used as is.
        await client.PutObjectAsync("preset", Oslo with { City = "Bergen" });
        Assert.Equal("Bergen", (await client.GetOrCreateAsync("preset", Factory)).City);
        Assert.Equal(1, runs);
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task GetOrCreateAsync_with_50_concurrent_callers_for_one_missing_key_runs_the_factory_once(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var client = harness.Client;
        await harness.WarmUpAsync();
        var runs = 0;
        var start = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        async ValueTask<Forecast> Factory(CancellationToken token)
        {
            Interlocked.Increment(ref runs);

            // Slow enough that the other callers arrive while it runs.
            await Task.Delay(100, token);
            return Oslo;
        }

        var callers = Enumerable.Range(0, 50).Select(async _ =>
        {
            await start.Task;
            return await client.GetOrCreateAsync("shared", Factory);
        }).ToArray();
        start.SetResult();
        var results = await Task.WhenAll(callers).WaitAsync(TestDeadlines.Phase);

        Assert.Equal(1, runs);
        Assert.All(results, result => Assert.True(result.Matches(Oslo)));
        Assert.True((await client.GetObjectAsync<Forecast>("shared"))!.Matches(Oslo));
    }

    [Fact]
    public async Task A_caller_that_stops_waiting_on_a_shared_GetOrCreateAsync_does_not_cancel_the_factory_for_the_others()
    {
        await using var harness = await ClientHarness.StartAsync();
        await harness.WarmUpAsync();
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var runs = 0;
        var factoryToken = CancellationToken.None;
        async ValueTask<Forecast> Factory(CancellationToken token)
        {
            factoryToken = token;
            Interlocked.Increment(ref runs);
            await release.Task;
            return Oslo;
        }

        using var impatient = new CancellationTokenSource();
        var first = harness.Client.GetOrCreateAsync("shared", Factory, null, impatient.Token).AsTask();
        await Poll.UntilAsync(() => Volatile.Read(ref runs) == 1, what: "the factory to start");
        var second = harness.Client.GetOrCreateAsync("shared", Factory).AsTask();

        await impatient.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => first.WaitAsync(TestDeadlines.Call));
        Assert.False(factoryToken.IsCancellationRequested);
        Assert.False(second.IsCompleted);

        release.SetResult();
        Assert.True((await second.WaitAsync(TestDeadlines.Call)).Matches(Oslo));
        Assert.Equal(1, runs);
        Assert.True((await harness.Client.GetObjectAsync<Forecast>("shared"))!.Matches(Oslo));
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task A_failing_factory_fails_its_callers_stores_nothing_and_a_later_call_runs_it_again(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var client = harness.Client;

        await Assert.ThrowsAsync<InvalidOperationException>(async () =>
            await client.GetOrCreateAsync<Forecast>("flaky", _ => throw new InvalidOperationException("backend down")));
        Assert.False(await client.ExistsAsync("flaky"));

        var created = await client.GetOrCreateAsync("flaky", _ => ValueTask.FromResult(Oslo));
        Assert.True(created.Matches(Oslo));
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task A_value_put_Compressed_is_stored_compressed_and_read_back_as_the_original(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var client = harness.Client;
        var original = Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat("the quick brown fox jumps over the lazy dog; ", 400)));
        var compressed = new CacheEntryOptions { Flags = CacheEntryFlags.Compressed };

        Assert.Equal(WriteOutcome.Created, await client.PutAsync("text", original, compressed));

        var (stored, flags, _) = await SiloProbe.RawEntryAsync(harness.Monitor, "text");
        Assert.Equal((long)CacheEntryFlags.Compressed, flags);
        Assert.NotNull(stored);
        Assert.True(stored.Length < original.Length / 10, $"stored {stored.Length} bytes for {original.Length}");
        Assert.NotEqual(original, stored);

        Assert.Equal(original, await client.GetAsync("text"));
        var entry = await client.GetEntryAsync("text");
        Assert.Equal(original, entry!.Value);
        Assert.Equal(CacheEntryFlags.Compressed, entry.Flags);

        // Objects and the distributed cache decompress too.
        await client.PutObjectAsync("object", Oslo, compressed);
        Assert.Equal((long)CacheEntryFlags.Compressed, (await SiloProbe.RawEntryAsync(harness.Monitor, "object")).Flags);
        Assert.True((await client.GetObjectAsync<Forecast>("object"))!.Matches(Oslo));
        Assert.Equal(original, harness.Cache.Get("text"));
        Assert.Equal(original, await harness.Cache.GetAsync("text"));

        // Writing without the flag replaces it.
        await client.PutAsync("text", "plain"u8.ToArray());
        var replaced = await SiloProbe.RawEntryAsync(harness.Monitor, "text");
        Assert.Equal(0, replaced.Flags);
        Assert.Equal("plain"u8.ToArray(), replaced.Value);
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task A_value_flagged_Compressed_that_is_not_Brotli_is_reported_naming_the_key(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        await harness.Monitor.CallAsync("CUBBY.SET", "corrupt", "not brotli at all", "FLAGS", "1");

        var error = await Assert.ThrowsAsync<CubbyException>(async () => await harness.Client.GetAsync("corrupt"));
        Assert.Contains("corrupt", error.Message, StringComparison.Ordinal);

        // The connection is still in step.
        await harness.Client.PutAsync("after", "ok"u8.ToArray());
        Assert.Equal("ok"u8.ToArray(), await harness.Client.GetAsync("after"));
    }

    [Theory]
    [MemberData(nameof(ClientRoutes.All), MemberType = typeof(ClientRoutes))]
    public async Task The_batch_forms_make_one_call_per_shard_or_one_coalesced_operation_per_key_and_keep_the_callers_order(ClientRoute route)
    {
        await using var harness = await ClientHarness.StartAsync(route);
        var client = harness.Client;
        var shards = new Cubby.Sharding.ShardMap();
        var keys = Enumerable.Range(0, 30).Select(i => $"batch:{i}").Append("{tag}a").Append("{tag}b").ToArray();
        var shardCount = keys.Select(shards.SlotOf).Distinct().Count();
        Assert.True(shardCount < keys.Length, "two keys share a shard through their hash tag");
        await client.PutAsync("batch:3", "old"u8.ToArray());
        WriteOutcome[] written = [];

        var puts = await harness.Silo.ShardCalls.CallsDuringAsync(async () =>
            written = await client.PutManyAsync([.. keys.Select(key => new KeyValuePair<string, ReadOnlyMemory<byte>>(key, Encoding.UTF8.GetBytes("v:" + key)))], CacheEntryOptions.ExpiresIn(TimeSpan.FromMinutes(1))));
        // Inside the silo, one call per shard. Through the gateway each key is an operation of the silo's batches, plus
        // a grain call for a key whose shard was not active yet (the batch answers it is not there, the grain places it).
        var coalesced = harness.Client is Cubby.Client.CubbyClient { Batches: not null };
        AssertCalls(coalesced ? keys.Length : shardCount, coalesced, puts);
        Assert.Equal(keys.Select(key => key == "batch:3" ? WriteOutcome.Updated : WriteOutcome.Created), written);
        Assert.InRange((await client.GetTimeToLiveAsync("{tag}b"))!.Value, TimeSpan.FromSeconds(50), TimeSpan.FromMinutes(1));

        byte[]?[] read = [];
        string[] asked = ["missing", .. keys.Reverse(), "batch:0"];
        var gets = await harness.Silo.ShardCalls.CallsDuringAsync(async () => read = await client.GetManyAsync(asked));
        AssertCalls(coalesced ? asked.Length : asked.Select(shards.SlotOf).Distinct().Count(), coalesced, gets);
        Assert.Null(read[0]);
        for (var i = 1; i < asked.Length; i++)
        {
            Assert.Equal(Encoding.UTF8.GetBytes("v:" + asked[i]), read[i]);
        }

        Assert.Empty(await client.GetManyAsync([]));
        Assert.Equal(keys.Length, await client.EvictManyAsync([.. keys, "missing"]));
        Assert.All(await client.GetManyAsync(keys), Assert.Null);
        Assert.Equal(0, await client.EvictManyAsync(keys));

        static void AssertCalls(int expected, bool coalesced, long calls)
        {
            if (coalesced)
            {
                Assert.InRange(calls, expected, 2 * expected);
            }
            else
            {
                Assert.Equal(expected, calls);
            }
        }
    }
}
