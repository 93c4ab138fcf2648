using System.Buffers;
using System.ComponentModel;
using System.Diagnostics;
using System.Text;
using Cubby.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary>
/// Cubby's own <see cref="HybridCache"/> (<c>AddCubbyHybridCache</c>) on a two-silo cluster, with app instances that
/// each have their own service provider: local copies that no write anywhere leaves stale, tags removed on every
/// instance, one factory run per key in an instance, every entry flag, serializers, and HybridCache's limits.
/// </summary>
public sealed class CubbyHybridCacheTests(CubbyHybridCacheTests.TwoSilos silos) : IClassFixture<CubbyHybridCacheTests.TwoSilos>
{
    private static readonly HybridCacheEntryOptions Minutes = new() { Expiration = TimeSpan.FromMinutes(5), LocalCacheExpiration = TimeSpan.FromMinutes(5) };

    private TestCluster Cluster => silos.Cluster;

    [Fact]
    public async Task A_write_on_one_instance_is_read_at_once_on_another_that_kept_the_old_value()
    {
        await using var first = App(Cluster.Silos[0]);
        await using var second = App(Cluster.Silos[1]);
        var (firstCache, secondCache) = (Hybrid(first), Hybrid(second));
        await firstCache.SetAsync("product:1", new Product(1, "v0"), Minutes);

        for (var round = 1; round <= 20; round++)
        {
            // Each instance keeps the current value: its reads are local hits.
            var expected = $"v{round - 1}";
            await KeptAsync(first, firstCache, "product:1", expected);
            await KeptAsync(second, secondCache, "product:1", expected);

            // A write on either instance: the other's next read, with no wait, is the new value.
            await (round % 2 == 0 ? firstCache : secondCache).SetAsync("product:1", new Product(1, $"v{round}"), Minutes);
            Assert.Equal($"v{round}", (await Read(firstCache, "product:1")).Name);
            Assert.Equal($"v{round}", (await Read(secondCache, "product:1")).Name);
        }

        // Each round: a kept copy served here, then the new value, read from the cluster or carried here with the write
        // (which of the two depends on timing, so only the sum is asserted); never a miss (Read's factory throws).
        Assert.InRange(((CubbyClient)Client(first)).Fills.LocalHits, 20, long.MaxValue);
        var secondFills = ((CubbyClient)Client(second)).Fills;
        Assert.InRange(secondFills.LocalHits + secondFills.RemoteHits, 40, long.MaxValue);
    }

    [Fact]
    public async Task Concurrent_callers_of_one_instance_share_one_factory_run_and_a_second_instance_reads_the_stored_value()
    {
        await using var first = App(Cluster.Silos[0]);
        await using var second = App(Cluster.Silos[1]);
        var runs = 0;
        var gate = new TaskCompletionSource();
        async ValueTask<Product> Slow(CancellationToken token)
        {
            Interlocked.Increment(ref runs);
            await gate.Task.WaitAsync(token);
            return new Product(7, "made");
        }

        var callers = Enumerable.Range(0, 50).Select(_ => Hybrid(first).GetOrCreateAsync("product:7", Slow, Minutes).AsTask()).ToArray();
        await Poll.UntilAsync(() => Volatile.Read(ref runs) == 1, TestDeadlines.Call, "the factory to start");
        gate.SetResult();
        Assert.All(await Task.WhenAll(callers), product => Assert.Equal("made", product.Name));
        Assert.Equal(1, runs);

        // Stored before the callers were answered: the other instance reads it, its factory never runs.
        Assert.Equal("made", (await Hybrid(second).GetOrCreateAsync<Product>("product:7", _ => throw new InvalidOperationException("ran"), Minutes)).Name);
        Assert.InRange((await Client(second).GetTimeToLiveAsync("product:7"))!.Value, TimeSpan.FromMinutes(4), TimeSpan.FromMinutes(5));
    }

    [Fact]
    public async Task Three_instances_missing_twenty_keys_at_once_run_each_factory_once_in_the_whole_cluster()
    {
        await using var first = App(Cluster.Silos[0]);
        await using var second = App(Cluster.Silos[1]);
        await using var third = App(Cluster.Silos[0]);
        var caches = new[] { Hybrid(first), Hybrid(second), Hybrid(third) };
        var runs = new int[20];
        var release = new TaskCompletionSource();
        async ValueTask<Product> Load(int id, CancellationToken token)
        {
            Interlocked.Increment(ref runs[id]);
            await release.Task.WaitAsync(token);
            return new Product(id, $"product {id}");
        }

        // Every instance, five callers each, every key: 300 callers, none of whom may start a second run of a key.
        var callers = (from cache in caches
                       from id in Enumerable.Range(0, 20)
                       from caller in Enumerable.Range(0, 5)
                       select cache.GetOrCreateAsync($"flight:{id}", id, Load, Minutes).AsTask()).ToArray();
        await Poll.UntilAsync(() => runs.All(static count => Volatile.Read(ref count) >= 1), TestDeadlines.Phase, "a run of every key to start");
        release.SetResult();
        var products = await Task.WhenAll(callers);
        Assert.All(products, product => Assert.Equal($"product {product.Id}", product.Name));
        Assert.All(runs, count => Assert.Equal(1, count));

        // The metrics say the same: 20 runs in all, and callers that waited for another's run, here or elsewhere.
        var metrics = new[] { first, second, third }.Select(static app => ((CubbyClient)Client(app)).Fills).ToArray();
        Assert.Equal(20, metrics.Sum(static m => m.FactoryRuns));
        Assert.Equal(20, metrics.Sum(static m => m.Misses));
        Assert.InRange(metrics.Sum(static m => m.JoinedWaits), 20 * 4 * 3, long.MaxValue);
    }

    [Fact]
    public async Task When_the_filler_fails_or_is_cancelled_a_waiter_in_another_instance_fills_at_once()
    {
        // A lease far longer than the test's deadline: the waiter must not have waited for it to run out.
        await using var filler = App(Cluster.Silos[0], lease: TimeSpan.FromSeconds(30));
        await using var waiter = App(Cluster.Silos[1], lease: TimeSpan.FromSeconds(30));
        foreach (var cancel in new[] { false, true })
        {
            var key = cancel ? "handover:cancelled" : "handover:failed";
            var started = new TaskCompletionSource();
            var fail = new TaskCompletionSource();
            using var stop = new CancellationTokenSource();
            async ValueTask<Product> Failing(CancellationToken token)
            {
                started.TrySetResult();
                await fail.Task.WaitAsync(token);
                throw new InvalidOperationException("database down");
            }

            var filling = Hybrid(filler).GetOrCreateAsync(key, Failing, Minutes, cancellationToken: stop.Token).AsTask();
            await started.Task.WaitAsync(TestDeadlines.Call);
            var waiterRuns = 0;
            var awaited = AwaitFillCalls();
            var waiting = Hybrid(waiter).GetOrCreateAsync(key, _ => { Interlocked.Increment(ref waiterRuns); return ValueTask.FromResult(new Product(1, "from the waiter")); }, Minutes).AsTask();
            await Poll.UntilAsync(() => AwaitFillCalls() > awaited, TestDeadlines.Call, "the waiter to wait for the filler");
            Assert.False(waiting.IsCompleted);

            // The filler's own caller sees its failure (or its cancellation); the waiter fills, well before the lease's end.
            if (cancel)
            {
                await stop.CancelAsync();
                await Assert.ThrowsAnyAsync<OperationCanceledException>(() => filling);
            }
            else
            {
                fail.SetResult();
                Assert.Equal("database down", (await Assert.ThrowsAsync<InvalidOperationException>(() => filling)).Message);
            }

            Assert.Equal("from the waiter", (await waiting.WaitAsync(TestDeadlines.Call)).Name);
            Assert.Equal(1, waiterRuns);
        }
    }

    [Fact]
    public async Task When_the_filler_stops_without_a_word_a_waiter_fills_once_its_lease_runs_out()
    {
        var filler = App(Cluster.Silos[0], lease: TimeSpan.FromSeconds(1));
        await using var waiter = App(Cluster.Silos[1], lease: TimeSpan.FromSeconds(1));
        var started = new TaskCompletionSource();
        var hung = Hybrid(filler).GetOrCreateAsync<Product>("handover:stopped", async _ =>
        {
            started.TrySetResult();
            await Task.Delay(Timeout.Infinite, CancellationToken.None);
            return new Product(0, "never");
        }, Minutes).AsTask();
        await started.Task.WaitAsync(TestDeadlines.Call);
        var waiting = Hybrid(waiter).GetOrCreateAsync("handover:stopped", _ => ValueTask.FromResult(new Product(2, "from the waiter")), Minutes).AsTask();

        // The filler's app stops while its factory hangs: no give-up reaches the shard, and no renewal either.
        await filler.DisposeAsync();
        Assert.Equal("from the waiter", (await waiting.WaitAsync(TestDeadlines.Phase)).Name);
        Assert.False(hung.IsCompletedSuccessfully);
    }

    [Fact]
    public async Task When_the_filler_process_is_killed_mid_factory_a_waiter_fills_once_its_lease_runs_out()
    {
        await using var waiter = App(Cluster.Silos[1], lease: TimeSpan.FromSeconds(2));
        var start = DotnetProcess.StartInfo(
            Path.Combine(AppContext.BaseDirectory, "Cubby.Tests.Filler.dll"), [$"127.0.0.1:{Cluster.Silos[0].GatewayEndPoint.Port}", "handover:killed", "2000"]);
        using var filler = Process.Start(start)!;
        try
        {
            // The other process holds the lease and its factory hangs; this instance waits for it.
            Assert.Equal("filling", await filler.StandardOutput.ReadLineAsync().WaitAsync(TestDeadlines.Phase));
            var awaited = AwaitFillCalls();
            var waiting = Hybrid(waiter).GetOrCreateAsync("handover:killed", _ => ValueTask.FromResult(new Product(3, "from the waiter")), Minutes).AsTask();
            await Poll.UntilAsync(() => AwaitFillCalls() > awaited, TestDeadlines.Call, "the waiter to wait for the other process");
            Assert.False(waiting.IsCompleted);

            // Killed mid-factory: it gives nothing up and renews nothing, and the waiter fills once the lease runs out.
            filler.Kill(entireProcessTree: true);
            Assert.Equal("from the waiter", (await waiting.WaitAsync(TestDeadlines.Phase)).Name);
        }
        finally
        {
            if (!filler.HasExited)
            {
                filler.Kill(entireProcessTree: true);
            }
        }
    }

    [Fact]
    public async Task A_failing_factory_fails_its_callers_and_the_next_call_runs_it_again()
    {
        await using var app = App(Cluster.Silos[0]);
        var cache = Hybrid(app);
        var error = await Assert.ThrowsAsync<InvalidOperationException>(
            async () => await cache.GetOrCreateAsync<Product>("product:fails", _ => throw new InvalidOperationException("database down"), Minutes));
        Assert.Equal("database down", error.Message);
        Assert.Equal("ok", (await cache.GetOrCreateAsync("product:fails", _ => ValueTask.FromResult(new Product(1, "ok")), Minutes)).Name);
    }

    [Fact]
    public async Task When_every_caller_stops_waiting_the_factory_is_cancelled()
    {
        await using var app = App(Cluster.Silos[0]);
        var started = new TaskCompletionSource();
        var cancelled = new TaskCompletionSource();
        async ValueTask<Product> Endless(CancellationToken token)
        {
            started.TrySetResult();
            try
            {
                await Task.Delay(Timeout.Infinite, token);
            }
            finally
            {
                cancelled.TrySetResult();
            }

            return new Product(0, "never");
        }

        using var stop = new CancellationTokenSource();
        var callers = Enumerable.Range(0, 3).Select(_ => Hybrid(app).GetOrCreateAsync("product:endless", Endless, Minutes, cancellationToken: stop.Token).AsTask()).ToArray();
        await started.Task.WaitAsync(TestDeadlines.Call);
        await stop.CancelAsync();
        foreach (var caller in callers)
        {
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => caller);
        }

        await cancelled.Task.WaitAsync(TestDeadlines.Call);
    }

    [Fact]
    public async Task Removing_a_tag_makes_its_entries_misses_on_every_instance_and_leaves_the_others()
    {
        await using var first = App(Cluster.Silos[0]);
        await using var second = App(Cluster.Silos[1]);
        var (firstCache, secondCache) = (Hybrid(first), Hybrid(second));
        var keys = Enumerable.Range(0, 40).Select(static i => $"tagged:{i}").ToArray();
        foreach (var key in keys)
        {
            await firstCache.SetAsync(key, new Product(1, key), Minutes, tags: ["catalog", key.EndsWith('0') ? "tens" : "units"]);
        }

        await firstCache.SetAsync("untagged", new Product(2, "untagged"), Minutes);
        await firstCache.SetAsync("other-tag", new Product(3, "other"), Minutes, tags: ["prices"]);
        foreach (var key in keys)
        {
            await KeptAsync(second, secondCache, key, key);
        }

        await firstCache.RemoveByTagAsync("catalog");
        Assert.Equal(1, ((CubbyClient)Client(first)).Fills.TagRemovals);

        // Every tagged entry is a miss on both instances at once, local copies included.
        foreach (var key in keys)
        {
            Assert.Equal("fresh", (await firstCache.GetOrCreateAsync(key, _ => ValueTask.FromResult(new Product(0, "fresh")), Minutes)).Name);
            Assert.Equal("fresh", (await secondCache.GetOrCreateAsync($"{key}", _ => ValueTask.FromResult(new Product(0, "other")), Minutes)).Name);
        }

        Assert.Equal("untagged", (await Read(secondCache, "untagged")).Name);
        Assert.Equal("other", (await Read(secondCache, "other-tag")).Name);

        // Written with the tag after the removal: a hit.
        await secondCache.SetAsync("after", new Product(4, "after"), Minutes, tags: ["catalog"]);
        Assert.Equal("after", (await Read(firstCache, "after")).Name);

        // Several tags in one call.
        await secondCache.RemoveByTagAsync(["catalog", "prices"]);
        await AssertMissAsync(firstCache, "after");
        await AssertMissAsync(firstCache, "other-tag");
        Assert.Equal("untagged", (await Read(firstCache, "untagged")).Name);
    }

    [Fact]
    public async Task A_new_value_kept_by_another_instance_goes_with_the_tags_it_was_written_with()
    {
        await using var first = App(Cluster.Silos[0]);
        await using var second = App(Cluster.Silos[1]);
        var (firstCache, secondCache) = (Hybrid(first), Hybrid(second));
        await firstCache.SetAsync("retagged:same", new Product(1, "v0"), Minutes, tags: ["shelf"]);
        await firstCache.SetAsync("retagged:moved", new Product(2, "v0"), Minutes, tags: ["shelf"]);
        await KeptAsync(second, secondCache, "retagged:same", "v0");
        await KeptAsync(second, secondCache, "retagged:moved", "v0");

        // New values, one under the same tag, one under another: the second instance keeps each (read or carried here).
        await firstCache.SetAsync("retagged:same", new Product(1, "v1"), Minutes, tags: ["shelf"]);
        await firstCache.SetAsync("retagged:moved", new Product(2, "v1"), Minutes, tags: ["aisle"]);
        await KeptAsync(second, secondCache, "retagged:same", "v1");
        await KeptAsync(second, secondCache, "retagged:moved", "v1");

        await firstCache.RemoveByTagAsync("shelf");
        await AssertMissAsync(secondCache, "retagged:same");
        Assert.Equal("v1", (await Read(secondCache, "retagged:moved")).Name);

        await firstCache.RemoveByTagAsync("aisle");
        await AssertMissAsync(secondCache, "retagged:moved");
    }

    [Fact]
    public async Task Removing_the_tag_star_removes_every_entry_on_every_instance()
    {
        await using var first = App(Cluster.Silos[0]);
        await using var second = App(Cluster.Silos[1]);
        await Hybrid(first).SetAsync("star:a", new Product(1, "a"), Minutes);
        await Hybrid(first).SetAsync("star:b", new Product(2, "b"), Minutes, tags: ["x"]);
        await KeptAsync(second, Hybrid(second), "star:a", "a");

        await Hybrid(second).RemoveByTagAsync("*");

        await AssertMissAsync(Hybrid(first), "star:a");
        await AssertMissAsync(Hybrid(second), "star:a");
        await AssertMissAsync(Hybrid(second), "star:b");
        await Hybrid(first).SetAsync("star:c", new Product(3, "c"), Minutes);
        Assert.Equal("c", (await Read(Hybrid(second), "star:c")).Name);
    }

    [Fact]
    public async Task RemoveAsync_of_one_key_and_of_many_removes_them_everywhere()
    {
        await using var first = App(Cluster.Silos[0]);
        await using var second = App(Cluster.Silos[1]);
        foreach (var key in new[] { "gone:1", "gone:2", "gone:3" })
        {
            await Hybrid(first).SetAsync(key, new Product(1, key), Minutes);
            await KeptAsync(second, Hybrid(second), key, key);
        }

        await Hybrid(first).RemoveAsync("gone:1");
        await Hybrid(first).RemoveAsync(["gone:2", "gone:3"]);
        foreach (var key in new[] { "gone:1", "gone:2", "gone:3" })
        {
            await AssertMissAsync(Hybrid(second), key);
            Assert.Null(await Client(first).GetAsync(key));
        }
    }

    [Fact]
    public async Task Each_entry_flag_does_what_it_says()
    {
        await using var app = App(Cluster.Silos[0]);
        var cache = Hybrid(app);
        var client = Client(app);
        static HybridCacheEntryOptions With(HybridCacheEntryFlags flags) => new() { Expiration = TimeSpan.FromMinutes(5), Flags = flags };
        static ValueTask<Product> Make(string name) => ValueTask.FromResult(new Product(1, name));

        // No underlying data: a miss is the default, and nothing is stored.
        Assert.Null(await cache.GetOrCreateAsync("flags:none", _ => ValueTask.FromResult<Product?>(new Product(1, "made")), With(HybridCacheEntryFlags.DisableUnderlyingData)));
        Assert.Null(await client.GetAsync("flags:none"));

        // No distributed write: nothing in the cluster, yet this instance hits its local copy.
        await cache.SetAsync("flags:local", new Product(1, "local"), With(HybridCacheEntryFlags.DisableDistributedCacheWrite));
        Assert.Null(await client.GetAsync("flags:local"));
        Assert.Equal("local", (await cache.GetOrCreateAsync("flags:local", _ => Make("factory"), With(HybridCacheEntryFlags.DisableUnderlyingData))).Name);

        // No distributed read: the factory runs though the cluster has the entry.
        await cache.SetAsync("flags:stored", new Product(1, "stored"), Minutes);
        Assert.Equal("factory", (await cache.GetOrCreateAsync("flags:stored", _ => Make("factory"), With(HybridCacheEntryFlags.DisableDistributedCacheRead | HybridCacheEntryFlags.DisableLocalCacheRead))).Name);

        // No local write: read from the cluster and not kept.
        await cache.SetAsync("flags:unkept", new Product(1, "unkept"), Minutes);
        for (var i = 0; i < 3; i++)
        {
            Assert.Equal("unkept", (await cache.GetOrCreateAsync("flags:unkept", _ => Make("factory"), With(HybridCacheEntryFlags.DisableLocalCacheWrite))).Name);
            Assert.False(((CubbyClient)client).TryGetKept("flags:unkept", out _));
        }

        // No local read: kept, yet each read goes to the cluster.
        await KeptAsync(app, cache, "flags:stored", "factory");
        for (var i = 0; i < 5; i++)
        {
            var sent = Sent(client);
            Assert.Equal("factory", (await cache.GetOrCreateAsync("flags:stored", _ => Make("again"), With(HybridCacheEntryFlags.DisableLocalCacheRead))).Name);
            Assert.True(Sent(client) > sent, "a read that may not use the local copy sent nothing");
        }

        // No compression: stored as serialized.
        await cache.SetAsync("flags:plain", "text", With(HybridCacheEntryFlags.DisableCompression));
        Assert.EndsWith("text", Encoding.UTF8.GetString((await client.GetAsync("flags:plain"))!));
    }

    [Fact]
    public async Task Strings_and_byte_arrays_are_stored_as_they_are_and_registered_serializers_are_used()
    {
        await using var app = App(Cluster.Silos[0], hybrid => hybrid.AddSerializer<Product, MarkedProductSerializer>());
        var cache = Hybrid(app);
        var client = Client(app);

        await cache.SetAsync("plain:string", "héllo", Minutes);
        await cache.SetAsync("plain:bytes", new byte[] { 1, 2, 3 }, Minutes);
        await cache.SetAsync("plain:product", new Product(5, "five"), Minutes);
        Assert.EndsWith("héllo", Encoding.UTF8.GetString((await client.GetAsync("plain:string"))!));
        Assert.Equal(new byte[] { 1, 2, 3 }, (await client.GetAsync("plain:bytes"))![^3..]);
        Assert.EndsWith("marked:5:five", Encoding.UTF8.GetString((await client.GetAsync("plain:product"))!));

        Assert.Equal("héllo", await cache.GetOrCreateAsync("plain:string", _ => ValueTask.FromResult("no"), Minutes));
        Assert.Equal(new byte[] { 1, 2, 3 }, await cache.GetOrCreateAsync("plain:bytes", _ => ValueTask.FromResult(Array.Empty<byte>()), Minutes));
        Assert.Equal(new Product(5, "five"), await cache.GetOrCreateAsync("plain:product", _ => ValueTask.FromResult(new Product(0, "no")), Minutes));
    }

    [Fact]
    public async Task Immutable_values_are_kept_as_objects_and_mutable_ones_are_a_new_copy_per_read()
    {
        await using var app = App(Cluster.Silos[0]);
        var cache = Hybrid(app);
        await cache.SetAsync("shape:frozen", new FrozenProduct(1, "frozen"), Minutes);
        await cache.SetAsync("shape:mutable", new Product(1, "mutable"), Minutes);
        await KeptAsync(app, cache, "shape:mutable", "mutable");
        FrozenProduct? first = null;
        await Poll.UntilAsync(
            async () =>
            {
                first = await cache.GetOrCreateAsync("shape:frozen", _ => ValueTask.FromResult(new FrozenProduct(0, "no")), Minutes);
                return ReferenceEquals(first, await cache.GetOrCreateAsync("shape:frozen", _ => ValueTask.FromResult(new FrozenProduct(0, "no")), Minutes));
            },
            TestDeadlines.Call,
            "two reads of an immutable value to be the same object");
        Assert.Equal("frozen", first!.Name);
        Assert.NotSame(await Read(cache, "shape:mutable"), await Read(cache, "shape:mutable"));
    }

    [Fact]
    public async Task An_immutable_value_an_instance_writes_over_its_kept_copy_is_then_served_as_the_object_it_gave()
    {
        await using var app = App(Cluster.Silos[0]);
        var cache = Hybrid(app);
        var fills = ((CubbyClient)Client(app)).Fills;
        await cache.SetAsync("shape:own", new FrozenProduct(1, "v0"), Minutes);
        for (var round = 1; round <= 5; round++)
        {
            // Kept here first, so the write replaces a kept copy with the value the shard sends back.
            await Poll.UntilAsync(
                async () =>
                {
                    var hits = fills.LocalHits;
                    return (await cache.GetOrCreateAsync("shape:own", _ => ValueTask.FromResult(new FrozenProduct(0, "miss")), Minutes)).Name == $"v{round - 1}"
                        && fills.LocalHits > hits;
                },
                TestDeadlines.Call,
                $"'shape:own' to be a local hit of v{round - 1}");

            var written = new FrozenProduct(1, $"v{round}");
            await cache.SetAsync("shape:own", written, Minutes);
            var hitsBefore = fills.LocalHits;
            Assert.Same(written, await cache.GetOrCreateAsync("shape:own", _ => ValueTask.FromResult(new FrozenProduct(0, "miss")), Minutes));
            Assert.Equal(hitsBefore + 1, fills.LocalHits);
        }
    }

    [Fact]
    public async Task Oversized_values_and_keys_are_passed_over_as_HybridCache_does()
    {
        await using var app = App(Cluster.Silos[0], configure: options => (options.MaximumPayloadBytes, options.MaximumKeyLength) = (1024, 64));
        var cache = Hybrid(app);
        var runs = 0;
        ValueTask<string> Make(string value) { Interlocked.Increment(ref runs); return ValueTask.FromResult(value); }

        // A value over MaximumPayloadBytes is returned and not stored.
        var big = new string('x', 4096);
        Assert.Equal(big, await cache.GetOrCreateAsync("big", _ => Make(big), Minutes));
        Assert.Null(await Client(app).GetAsync("big"));

        // A key over MaximumKeyLength is never cached: the factory runs each time.
        var longKey = new string('k', 65);
        Assert.Equal("v", await cache.GetOrCreateAsync(longKey, _ => Make("v"), Minutes));
        Assert.Equal("v", await cache.GetOrCreateAsync(longKey, _ => Make("v"), Minutes));
        Assert.Equal(3, runs);
        Assert.Null(await Client(app).GetAsync(longKey));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await cache.GetOrCreateAsync(null!, _ => Make("v")));
        await Assert.ThrowsAsync<ArgumentException>(async () => await cache.SetAsync("tags", "v", tags: [""]));
    }

    [Fact]
    public async Task A_local_copy_is_served_until_its_local_expiration_then_read_again()
    {
        await using var app = App(Cluster.Silos[0]);
        var cache = Hybrid(app);
        var shortLocal = new HybridCacheEntryOptions { Expiration = TimeSpan.FromMinutes(5), LocalCacheExpiration = TimeSpan.FromMilliseconds(300) };
        await cache.SetAsync("local-expiry", new Product(1, "v"), shortLocal);
        var client = Client(app);
        async Task<bool> ReadSends()
        {
            var sent = Sent(client);
            Assert.Equal("v", (await cache.GetOrCreateAsync("local-expiry", _ => ValueTask.FromResult(new Product(0, "no")), shortLocal)).Name);
            return Sent(client) > sent;
        }

        // Kept, so a read sends nothing; then, past 300 ms, read from the cluster again.
        await Poll.UntilAsync(async () => !await ReadSends(), TestDeadlines.Call, "a local hit");
        await Poll.UntilAsync(ReadSends, TestDeadlines.Call, "the local copy to expire and be read again");
    }

    /// <summary>The waits for another filler the silos have received.</summary>
    private long AwaitFillCalls() => Cluster.Silos.Sum(static silo => silo.ShardCalls.CallsOf(nameof(Cubby.Sharding.IShardGrain.AwaitFill)));

    private static ServiceProvider App(TestSilo silo, Action<IHybridCacheBuilder>? hybrid = null, Action<HybridCacheOptions>? configure = null, TimeSpan? lease = null)
    {
        var services = new ServiceCollection();
        var builder = services.AddCubbyClient(o =>
        {
            o.Endpoints.Add($"127.0.0.1:{silo.GatewayEndPoint.Port}");
            o.FillLease = lease ?? o.FillLease;
        }).AddCubbyHybridCache(configure);
        hybrid?.Invoke(builder);
        return services.BuildServiceProvider();
    }

    private static HybridCache Hybrid(IServiceProvider app) => app.GetRequiredService<HybridCache>();

    private static ICubbyClient Client(IServiceProvider app) => app.GetRequiredService<ICubbyClient>();

    /// <summary>Operations the client has sent to the silos in batches.</summary>
    private static long Sent(ICubbyClient client) => ((CubbyClient)client).Batches!.Batchers.Sum(static batcher => batcher.OperationsSent);

    private static ValueTask<Product> Read(HybridCache cache, string key) =>
        cache.GetOrCreateAsync<Product>(key, _ => throw new InvalidOperationException($"'{key}' was a miss"), Minutes);

    private static async Task AssertMissAsync(HybridCache cache, string key) =>
        Assert.Equal("miss", (await cache.GetOrCreateAsync(key, _ => ValueTask.FromResult(new Product(0, "miss")), new HybridCacheEntryOptions { Flags = HybridCacheEntryFlags.DisableDistributedCacheWrite | HybridCacheEntryFlags.DisableLocalCacheWrite })).Name);

    /// <summary>Reads until the value is served from this instance's near cache.</summary>
    private static async Task KeptAsync(IServiceProvider app, HybridCache cache, string key, string expected)
    {
        var fills = ((CubbyClient)Client(app)).Fills;
        await Poll.UntilAsync(
            async () =>
            {
                var hits = fills.LocalHits;
                return (await Read(cache, key)).Name == expected && fills.LocalHits > hits;
            },
            TestDeadlines.Call,
            $"'{key}' to be a local hit of '{expected}'");
    }

    public sealed record Product(int Id, string Name);

    /// <summary>One two-silo cluster for the class: each test uses keys of its own.</summary>
    public sealed class TwoSilos : IAsyncLifetime
    {
        public TestCluster Cluster { get; private set; } = null!;

        public async Task InitializeAsync() => Cluster = await TestCluster.StartAsync(2);

        public async Task DisposeAsync() => await Cluster.DisposeAsync();
    }

    [ImmutableObject(true)]
    public sealed record FrozenProduct(int Id, string Name);

    private sealed class MarkedProductSerializer : IHybridCacheSerializer<Product>
    {
        public Product Deserialize(ReadOnlySequence<byte> source)
        {
            var parts = Encoding.UTF8.GetString(source).Split(':', 3);
            return new Product(int.Parse(parts[1], System.Globalization.CultureInfo.InvariantCulture), parts[2]);
        }

        public void Serialize(Product value, IBufferWriter<byte> target) => target.Write(Encoding.UTF8.GetBytes($"marked:{value.Id}:{value.Name}"));
    }
}
