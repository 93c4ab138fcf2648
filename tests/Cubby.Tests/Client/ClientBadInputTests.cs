using System.Buffers;
using System.Text;
using Cubby.Client;
using Microsoft.Extensions.Caching.Distributed;

namespace Cubby.Tests.Client;

/// <summary>Bad arguments at every public entry point fail on the caller's side, before anything is sent.</summary>
public sealed class ClientBadInputTests
{
    private const int MaxKeyBytes = 64;
    private const int MaxValueBytes = 1024;
    private static readonly DistributedCacheEntryOptions NoExpiry = new();

    /// <summary>Each public method that takes a key, called with the given key.</summary>
    private static IEnumerable<(string Name, Func<Task> Call)> KeyedCalls(ICubbyClient client, IBufferDistributedCache cache, string key) =>
    [
        ("PutAsync", async () => await client.PutAsync(key, new byte[] { 1 })),
        ("GetAsync", async () => await client.GetAsync(key)),
        ("GetEntryAsync", async () => await client.GetEntryAsync(key)),
        ("ExistsAsync", async () => await client.ExistsAsync(key)),
        ("RefreshAsync", async () => await client.RefreshAsync(key)),
        ("EvictAsync", async () => await client.EvictAsync(key)),
        ("GetTimeToLiveAsync", async () => await client.GetTimeToLiveAsync(key)),
        ("PutObjectAsync", async () => await client.PutObjectAsync(key, 1)),
        ("GetObjectAsync", async () => await client.GetObjectAsync<int>(key)),
        ("GetOrCreateAsync", async () => await client.GetOrCreateAsync(key, _ => ValueTask.FromResult(1))),
        ("GetManyAsync", async () => await client.GetManyAsync(["fine", key])),
        ("PutManyAsync", async () => await client.PutManyAsync([new("fine", new byte[] { 1 }), new(key, new byte[] { 1 })])),
        ("EvictManyAsync", async () => await client.EvictManyAsync(["fine", key])),
        ("GetOwnerAsync", async () => await client.GetOwnerAsync(key)),
        ("Get", () => Task.FromResult(cache.Get(key))),
        ("GetAsync(cache)", () => cache.GetAsync(key)),
        ("Set", () => { cache.Set(key, [1], NoExpiry); return Task.CompletedTask; }),
        ("SetAsync", () => cache.SetAsync(key, [1], NoExpiry)),
        ("Refresh", () => { cache.Refresh(key); return Task.CompletedTask; }),
        ("RefreshAsync(cache)", () => cache.RefreshAsync(key)),
        ("Remove", () => { cache.Remove(key); return Task.CompletedTask; }),
        ("RemoveAsync", () => cache.RemoveAsync(key)),
        ("TryGet", () => Task.FromResult(cache.TryGet(key, new ArrayBufferWriter<byte>()))),
        ("TryGetAsync", async () => await cache.TryGetAsync(key, new ArrayBufferWriter<byte>())),
        ("Set(sequence)", () => { cache.Set(key, new ReadOnlySequence<byte>([1]), NoExpiry); return Task.CompletedTask; }),
        ("SetAsync(sequence)", async () => await cache.SetAsync(key, new ReadOnlySequence<byte>([1]), NoExpiry)),
    ];

    /// <summary>Each public method that takes a value, called with a value of the given size.</summary>
    private static IEnumerable<(string Name, Func<Task> Call)> ValueCalls(ICubbyClient client, IBufferDistributedCache cache, int size) =>
    [
        ("PutAsync", async () => await client.PutAsync("v", new byte[size])),
        ("PutAsync(compressed)", async () => await client.PutAsync("v", new byte[size], new CacheEntryOptions { Flags = CacheEntryFlags.Compressed })),
        ("PutObjectAsync", async () => await client.PutObjectAsync("v", new string('o', size - 2))),
        ("PutManyAsync", async () => await client.PutManyAsync([new("v", new byte[size])])),
        ("Set", () => { cache.Set("v", new byte[size], NoExpiry); return Task.CompletedTask; }),
        ("SetAsync", () => cache.SetAsync("v", new byte[size], NoExpiry)),
        ("Set(sequence)", () => { cache.Set("v", Resp.Sequences.Split(new byte[size], size / 2), NoExpiry); return Task.CompletedTask; }),
        ("SetAsync(sequence)", async () => await cache.SetAsync("v", Resp.Sequences.Split(new byte[size], size / 2), NoExpiry)),
    ];

    [Fact]
    public async Task A_null_key_throws_ArgumentNullException_everywhere_and_sends_nothing()
    {
        await using var harness = await StartAsync();
        var sent = await harness.Silo.ShardCalls.CallsDuringAsync(async () =>
        {
            foreach (var (name, call) in KeyedCalls(harness.Client, harness.BufferCache, null!))
            {
                var error = await Record(name, call);
                Assert.True(error is ArgumentNullException { ParamName: "key" }, $"{name} threw {error}");
            }
        });

        Assert.Equal(0, sent);
    }

    [Fact]
    public async Task An_empty_key_throws_ArgumentException_everywhere_and_sends_nothing()
    {
        await using var harness = await StartAsync();
        var sent = await harness.Silo.ShardCalls.CallsDuringAsync(async () =>
        {
            foreach (var (name, call) in KeyedCalls(harness.Client, harness.BufferCache, string.Empty))
            {
                var error = await Record(name, call);
                Assert.True(error?.GetType() == typeof(ArgumentException) && ((ArgumentException)error).ParamName == "key", $"{name} threw {error}");
            }
        });

        Assert.Equal(0, sent);
    }

    [Fact]
    public async Task A_key_over_MaxKeyBytes_in_UTF8_throws_ArgumentException_naming_the_limit_and_sends_nothing()
    {
        await using var harness = await StartAsync();

        // 33 two-byte characters: 33 chars but 66 UTF-8 bytes, over the limit of 64.
        foreach (var key in (string[])[new string('k', MaxKeyBytes + 1), new string('é', (MaxKeyBytes / 2) + 1), new string('€', 22)])
        {
            var sent = await harness.Silo.ShardCalls.CallsDuringAsync(async () =>
            {
                foreach (var (name, call) in KeyedCalls(harness.Client, harness.BufferCache, key))
                {
                    var error = await Record(name, call);
                    Assert.True(error?.GetType() == typeof(ArgumentException), $"{name} threw {error}");
                    Assert.Contains("MaxKeyBytes", error.Message, StringComparison.Ordinal);
                    Assert.Contains(MaxKeyBytes.ToString(System.Globalization.CultureInfo.InvariantCulture), error.Message, StringComparison.Ordinal);
                    Assert.Contains(Encoding.UTF8.GetByteCount(key).ToString(System.Globalization.CultureInfo.InvariantCulture), error.Message, StringComparison.Ordinal);
                }
            });
            Assert.Equal(0, sent);
        }

        // Exactly at the limit is fine, counted in bytes.
        var longest = new string('é', MaxKeyBytes / 2);
        Assert.Equal(WriteOutcome.Created, await harness.Client.PutAsync(longest, new byte[] { 1 }));
        Assert.Equal([1], harness.Cache.Get(longest));
    }

    [Fact]
    public async Task A_value_over_MaxValueBytes_throws_ArgumentException_naming_the_limit_and_sends_nothing()
    {
        await using var harness = await StartAsync();
        var sent = await harness.Silo.ShardCalls.CallsDuringAsync(async () =>
        {
            foreach (var (name, call) in ValueCalls(harness.Client, harness.BufferCache, MaxValueBytes + 1))
            {
                var error = await Record(name, call);
                Assert.True(error?.GetType() == typeof(ArgumentException), $"{name} threw {error}");
                Assert.Contains("MaxValueBytes", error.Message, StringComparison.Ordinal);
                Assert.Contains("1024", error.Message, StringComparison.Ordinal);
            }
        });

        Assert.Equal(0, sent);
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "v"));

        // GetOrCreateAsync learns the size only from the factory, after its lookup: the caller gets the error, nothing is stored.
        var created = await Record("GetOrCreateAsync", async () => await harness.Client.GetOrCreateAsync("v", _ => ValueTask.FromResult(new string('o', MaxValueBytes - 1))));
        Assert.True(created?.GetType() == typeof(ArgumentException), $"GetOrCreateAsync threw {created}");
        Assert.Contains("MaxValueBytes", created.Message, StringComparison.Ordinal);
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "v"));

        // Exactly at the limit is fine.
        foreach (var (name, call) in ValueCalls(harness.Client, harness.BufferCache, MaxValueBytes))
        {
            Assert.Null(await Record(name, call));
            Assert.True(await SiloProbe.ExistsAsync(harness.Monitor, "v"), name);
            await harness.Client.EvictAsync("v");
        }
    }

    [Fact]
    public async Task Null_values_options_destinations_and_factories_throw_ArgumentNullException_and_send_nothing()
    {
        await using var harness = await StartAsync();
        var cache = harness.BufferCache;
        (string Name, string Parameter, Func<Task> Call)[] calls =
        [
            ("Set value", "value", () => { cache.Set("k", (byte[])null!, NoExpiry); return Task.CompletedTask; }),
            ("SetAsync value", "value", () => cache.SetAsync("k", null!, NoExpiry)),
            ("Set options", "options", () => { cache.Set("k", [1], null!); return Task.CompletedTask; }),
            ("SetAsync options", "options", () => cache.SetAsync("k", [1], null!)),
            ("Set(sequence) options", "options", () => { cache.Set("k", new ReadOnlySequence<byte>([1]), null!); return Task.CompletedTask; }),
            ("SetAsync(sequence) options", "options", async () => await cache.SetAsync("k", new ReadOnlySequence<byte>([1]), null!)),
            ("TryGet destination", "destination", () => Task.FromResult(cache.TryGet("k", null!))),
            ("TryGetAsync destination", "destination", async () => await cache.TryGetAsync("k", null!)),
            ("GetOrCreateAsync factory", "factory", async () => await harness.Client.GetOrCreateAsync<int>("k", null!)),
        ];

        var sent = await harness.Silo.ShardCalls.CallsDuringAsync(async () =>
        {
            foreach (var (name, parameter, call) in calls)
            {
                var error = await Record(name, call);
                Assert.True(error is ArgumentNullException e && e.ParamName == parameter, $"{name} threw {error}");
            }
        });

        Assert.Equal(0, sent);
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "k"));
    }

    [Fact]
    public async Task The_silo_refuses_keys_and_values_over_its_own_limits_when_a_client_allows_more_naming_its_settings()
    {
        await using var harness = await ClientHarness.StartAsync(configureSilo: o =>
        {
            o.MaxKeyBytes = MaxKeyBytes;
            o.MaxValueBytes = MaxValueBytes;
        });

        var key = await Assert.ThrowsAsync<ArgumentException>(async () => await harness.Client.PutAsync(new string('k', MaxKeyBytes + 1), new byte[] { 1 }));
        Assert.Contains("Cubby:MaxKeyBytes", key.Message, StringComparison.Ordinal);
        var value = await Assert.ThrowsAsync<ArgumentException>(async () => await harness.Client.PutAsync("v", new byte[MaxValueBytes + 1]));
        Assert.Contains("Cubby:MaxValueBytes", value.Message, StringComparison.Ordinal);
        var many = await Assert.ThrowsAsync<ArgumentException>(async () => await harness.Client.PutManyAsync([new("ok", new byte[] { 1 }), new("v", new byte[MaxValueBytes + 1])]));
        Assert.Contains("Cubby:MaxValueBytes", many.Message, StringComparison.Ordinal);
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "v"));

        // The silo goes on serving.
        Assert.Equal(WriteOutcome.Created, await harness.Client.PutAsync("fits", new byte[MaxValueBytes]));
    }

    private static async Task<ClientHarness> StartAsync()
    {
        var harness = await ClientHarness.StartAsync(configure: o =>
        {
            o.MaxKeyBytes = MaxKeyBytes;
            o.MaxValueBytes = MaxValueBytes;
        });
        await harness.WarmUpAsync();
        return harness;
    }

    /// <summary>The exception a call throws, whether synchronously or through its task; null when it succeeds.</summary>
    private static async Task<Exception?> Record(string name, Func<Task> call)
    {
        try
        {
            await call().WaitAsync(TestDeadlines.Call);
            return null;
        }
        catch (Exception exception) when (exception is not TimeoutException)
        {
            return exception;
        }
        catch (TimeoutException)
        {
            Assert.Fail($"{name} did not finish");
            throw;
        }
    }
}
