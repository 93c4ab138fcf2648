using System.Text;
using Cubby.Client;
using Cubby.Client.NearCaching;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary>
/// Changes that carry their new value to the near caches holding the key (<see cref="NearCacheOptions.UpdateMaxBytes"/>),
/// so their next read stays local; larger values, and keys a cache no longer holds, are only invalidated.
/// </summary>
public sealed class NearCacheUpdateTests
{
    [Fact]
    public async Task A_small_value_written_elsewhere_replaces_the_kept_one_and_is_read_without_a_call()
    {
        await using var harness = await StartAsync(updateMaxBytes: 64);
        await using var other = ClientHarness.GatewayApp(harness.Silo);
        var writer = other.GetRequiredService<ICubbyClient>();
        await harness.Client.PutAsync("hot", Utf8("v0"));
        var cache = await NearCacheTests.KeptAsync(harness.Client, "hot", "v0");

        for (var i = 1; i <= 20; i++)
        {
            var updates = cache.Metrics.Updates;
            var misses = cache.Metrics.Misses;

            // Strict: the write is answered once this near cache took the change, so its next read needs no polling.
            await writer.PutAsync("hot", Utf8($"v{i}"));

            Assert.Equal(updates + 1, cache.Metrics.Updates);
            Assert.Equal($"v{i}", Text(await harness.Client.GetAsync("hot")));
            Assert.Equal(misses, cache.Metrics.Misses);
        }
    }

    [Theory]
    [InlineData(NearCacheCoherence.Strict)]
    [InlineData(NearCacheCoherence.Pushed)]
    public async Task A_client_reads_its_own_writes_and_a_strict_one_from_its_near_cache(NearCacheCoherence coherence)
    {
        await using var harness = await ClientHarness.StartAsync(configure: o =>
        {
            o.NearCache.Enabled = true;
            o.NearCache.Coherence = coherence;
        });
        await harness.Client.PutAsync("own", Utf8("v0"));
        var cache = await NearCacheTests.KeptAsync(harness.Client, "own", "v0");
        var pushes = 0;
        cache.Applied = () => Interlocked.Increment(ref pushes);

        for (var i = 1; i <= 20; i++)
        {
            await harness.Client.PutAsync("own", Utf8($"v{i}"));
            var misses = cache.Metrics.Misses;
            Assert.Equal($"v{i}", Text(await harness.Client.GetAsync("own")));

            // Told of its own write before it was answered, a strict cache holds the value. A pushed one drops the key when
            // answered, and may hold the value again at once if the silo's push raced the answer (it is the newest).
            if (coherence == NearCacheCoherence.Strict)
            {
                Assert.Equal(misses, cache.Metrics.Misses);
            }
        }

        // A strict cache's own writes came with their answers: the silo pushed it nothing.
        Assert.Equal(coherence == NearCacheCoherence.Strict, Volatile.Read(ref pushes) == 0);

        await harness.Client.PutManyAsync([KeyValuePair.Create("own", (ReadOnlyMemory<byte>)Utf8("many"))]);
        Assert.Equal("many", Text(await harness.Client.GetAsync("own")));
    }

    [Fact]
    public async Task A_change_through_the_RESP_door_carries_the_new_value_and_its_expiry()
    {
        await using var harness = await StartAsync(updateMaxBytes: 64);
        await harness.Client.PutAsync("door", Utf8("v0"));
        var cache = await NearCacheTests.KeptAsync(harness.Client, "door", "v0");

        RespAssert.Ok(await harness.Monitor.CallAsync("SET", "door", "v1", "PX", "60000"));

        Assert.Equal(1, cache.Metrics.Updates);
        var misses = cache.Metrics.Misses;
        Assert.Equal("v1", Text(await harness.Client.GetAsync("door")));
        Assert.Equal(misses, cache.Metrics.Misses);
        Assert.True(cache.TryGet("door", out var kept));
        Assert.InRange(kept.ExpiresAt - cache.Clock.Now, 50_000, 60_000);
    }

    [Fact]
    public async Task A_value_over_the_bound_is_dropped_and_read_again()
    {
        await using var harness = await StartAsync(updateMaxBytes: 64);
        await using var other = ClientHarness.GatewayApp(harness.Silo);
        await harness.Client.PutAsync("large", Utf8("v0"));
        var cache = await NearCacheTests.KeptAsync(harness.Client, "large", "v0");
        var large = new string('x', 65);

        await other.GetRequiredService<ICubbyClient>().PutAsync("large", Utf8(large));

        Assert.Equal(0, cache.Metrics.Updates);
        var misses = cache.Metrics.Misses;
        Assert.Equal(large, Text(await harness.Client.GetAsync("large")));
        Assert.True(cache.Metrics.Misses > misses, "the large value was served from the near cache");
    }

    [Fact]
    public async Task With_updates_off_every_change_drops_the_kept_value()
    {
        await using var harness = await StartAsync(updateMaxBytes: 0);
        await using var other = ClientHarness.GatewayApp(harness.Silo);
        await harness.Client.PutAsync("off", Utf8("v0"));
        var cache = await NearCacheTests.KeptAsync(harness.Client, "off", "v0");

        await other.GetRequiredService<ICubbyClient>().PutAsync("off", Utf8("v1"));

        Assert.Equal(0, cache.Metrics.Updates);
        var misses = cache.Metrics.Misses;
        Assert.Equal("v1", Text(await harness.Client.GetAsync("off")));
        Assert.True(cache.Metrics.Misses > misses, "the changed value was served from the near cache");
    }

    [Fact]
    public async Task A_removal_or_a_hash_write_is_never_carried_as_a_value()
    {
        await using var harness = await StartAsync(updateMaxBytes: 64);
        await harness.Client.PutAsync("gone", Utf8("v0"));
        var cache = await NearCacheTests.KeptAsync(harness.Client, "gone", "v0");

        RespAssert.Integer(1, await harness.Monitor.CallAsync("DEL", "gone"));
        Assert.Null(await harness.Client.GetAsync("gone"));

        RespAssert.Integer(1, await harness.Monitor.CallAsync("HSET", "gone", "field", "v"));
        Assert.Equal(0, cache.Metrics.Updates);
    }

    [Fact]
    public async Task A_key_this_cache_no_longer_holds_refuses_one_value_and_is_then_forgotten_by_the_silo()
    {
        await using var harness = await StartAsync(updateMaxBytes: 64);
        await using var other = ClientHarness.GatewayApp(harness.Silo);
        var writer = other.GetRequiredService<ICubbyClient>();
        await harness.Client.PutAsync("evicted", Utf8("v0"));
        var cache = await NearCacheTests.KeptAsync(harness.Client, "evicted", "v0");

        // Dropped here without the silo knowing, as an eviction for space does.
        cache.Drop("evicted");
        var invalidations = cache.Metrics.Invalidations;

        // The first change still carries a value, which this cache refuses; the next tells it only of the change, and
        // ends its tracking; the one after tells it nothing.
        await writer.PutAsync("evicted", Utf8("v1"));
        Assert.Equal(invalidations + 1, cache.Metrics.Invalidations);
        await writer.PutAsync("evicted", Utf8("v2"));
        Assert.Equal(invalidations + 2, cache.Metrics.Invalidations);
        await writer.PutAsync("evicted", Utf8("v3"));
        Assert.Equal(invalidations + 2, cache.Metrics.Invalidations);
        Assert.Equal(0, cache.Metrics.Updates);

        // Read again, the key is tracked again and takes the next value.
        await NearCacheTests.KeptAsync(harness.Client, "evicted", "v3");
        await writer.PutAsync("evicted", Utf8("v4"));
        Assert.Equal(1, cache.Metrics.Updates);
        Assert.Equal("v4", Text(await harness.Client.GetAsync("evicted")));
    }

    private static Task<ClientHarness> StartAsync(int updateMaxBytes) =>
        ClientHarness.StartAsync(configure: o =>
        {
            o.NearCache.Enabled = true;
            o.NearCache.UpdateMaxBytes = updateMaxBytes;
        });

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);

    private static string? Text(byte[]? value) => value is null ? null : Encoding.UTF8.GetString(value);
}
