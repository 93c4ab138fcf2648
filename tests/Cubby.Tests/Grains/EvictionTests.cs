using Cubby.Grains;
using Cubby.Grains.Capacity;
using Cubby.Grains.Hosting;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class EvictionTests
{
    private static readonly byte[] Value = new byte[32];

    [Fact]
    public void EvictOne_of_an_empty_grain_frees_nothing()
    {
        using var host = new SingleGrain();

        Assert.True(host.Grain.TryEvictOne(5, out var freed));
        Assert.Equal(0, freed);
        Assert.Equal(0, host.Grain.EvictedCount);
    }

    [Fact]
    public void EvictOne_removes_one_entry_and_returns_its_size()
    {
        using var host = new SingleGrain();
        host.Set("a", "value");
        host.Set("bb", "longer value");
        var used = host.Budget.Used;

        Assert.True(host.Grain.TryEvictOne(5, out var freed));

        Assert.Equal(1, host.Grain.Count);
        Assert.Equal(1, host.Grain.EvictedCount);
        Assert.Equal(0, host.Grain.ExpiredCount);
        Assert.Equal(used - freed, host.Budget.Used);
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
        using var sizer = new EntryStore();
        Assert.Contains(freed, new[] { sizer.SizeOf(1, 5), sizer.SizeOf(2, 12) });
    }

    [Fact]
    public void EvictOne_takes_an_expired_entry_in_its_sample_before_any_live_one()
    {
        for (var round = 0; round < 20; round++)
        {
            using var host = new SingleGrain();

            // The live entry is the least recently used, so only the preference for expired entries saves it.
            host.Set("live", "v");
            host.Advance(5000);
            host.Set("expired", "v", new ExpirySpec(host.Now + 1000));
            host.Advance(2000);

            Assert.True(host.Grain.TryEvictOne(64, out var freed));
            Assert.True(freed > 0);

            Assert.Equal(1, host.Grain.Count);
            Assert.Equal(1, host.Grain.ExpiredCount);
            Assert.Equal(0, host.Grain.EvictedCount);
            Assert.Equal("v", host.Get("live"));
        }
    }

    [Fact]
    public void EvictOne_takes_the_least_recently_used_entry_of_its_sample()
    {
        for (var round = 0; round < 20; round++)
        {
            using var host = new SingleGrain();
            host.Set("old", "v");
            host.Advance(1000);
            host.Set("new", "v");
            host.Set("newer", "v");
            host.Advance(1000);
            Assert.Equal("v", host.Get("newer"));

            Assert.True(host.Grain.TryEvictOne(64, out _));

            Assert.Null(host.Get("old"));
            Assert.Equal("v", host.Get("new"));
            Assert.Equal("v", host.Get("newer"));
        }
    }

    [Fact]
    public void MakeRoom_evicts_until_the_bytes_fit_so_writes_succeed()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 8, MaxMemoryBytes = 20_000 });
        var evictor = new Evictor(host.Catalog);
        var size = host.Catalog.EstimateSize("key:000".Length, Value.Length);
        var fits = (int)(host.Catalog.Budget.Limit / size);
        for (var i = 0; i < fits; i++)
        {
            Assert.Equal(SetStatus.Created, host.Set($"key:{i:000}", Value));
        }

        Assert.True(host.Catalog.Budget.Available < size);

        for (var i = 0; i < 50; i++)
        {
            var key = $"new:{i:000}";
            Assert.True(evictor.MakeRoom(size));
            Assert.True(host.Catalog.Budget.Available >= size);
            Assert.Equal(SetStatus.Created, host.Set(key, Value));
            Assert.True(host.Catalog.Budget.Used <= host.Catalog.Budget.Limit);
        }

        Assert.Equal(fits, host.Catalog.Count());
        Assert.Equal(50, host.EvictedCount());
        Assert.Equal(host.GrainBytes(), host.Catalog.Budget.Used);
    }

    [Fact]
    public void MakeRoom_prefers_expired_entries()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 4, MaxMemoryBytes = 20_000, EvictionSamples = 64 });
        var evictor = new Evictor(host.Catalog);
        var size = host.Catalog.EstimateSize("key:000".Length, Value.Length);
        var fits = (int)(host.Catalog.Budget.Limit / size);
        for (var i = 0; i < fits; i++)
        {
            Assert.Equal(SetStatus.Created, host.Set($"key:{i:000}", Value, i % 2 == 0 ? new ExpirySpec(host.Now + 1000) : default));
        }

        host.Advance(1000);
        for (var i = 0; i < 20; i++)
        {
            Assert.True(evictor.MakeRoom(size));
            Assert.Equal(SetStatus.Created, host.Set($"new:{i:000}", Value));
        }

        Assert.Equal(0, host.EvictedCount());
        Assert.Equal(20, host.ExpiredCount());
        for (var i = 1; i < fits; i += 2)
        {
            Assert.True(host.Exists($"key:{i:000}"));
        }
    }

    [Fact]
    public void MakeRoom_refuses_more_than_the_whole_budget()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 4, MaxMemoryBytes = 10_000 });
        host.Set("k", Value);

        Assert.False(new Evictor(host.Catalog).MakeRoom(10_001));

        Assert.Equal(1, host.Catalog.Count());
    }

    [Fact]
    public void MakeRoom_gives_up_when_every_grain_is_empty_and_the_bytes_still_do_not_fit()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 4, MaxMemoryBytes = 10_000 });
        host.Set("k", Value);
        Assert.True(host.Catalog.Budget.TryCharge(host.Catalog.Budget.Available - 10));

        Assert.False(new Evictor(host.Catalog).MakeRoom(1000));

        Assert.Equal(0, host.Catalog.Count());
        Assert.Equal(1, host.EvictedCount());
    }

    [Fact]
    public void MakeRoom_evicts_nothing_when_the_bytes_already_fit()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 4, MaxMemoryBytes = 10_000 });
        host.Set("k", Value);

        Assert.True(new Evictor(host.Catalog).MakeRoom(1000));

        Assert.Equal(1, host.Catalog.Count());
        Assert.Equal(0, host.EvictedCount());
    }

    [Fact]
    public void A_write_into_a_full_catalog_evicts_to_make_room_instead_of_refusing()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 8, MaxMemoryBytes = 20_000 });
        var size = host.Catalog.EstimateSize("key:000".Length, Value.Length);
        var fits = (int)(host.Catalog.Budget.Limit / size);
        for (var i = 0; i < fits + 50; i++)
        {
            Assert.Equal(SetStatus.Created, host.Set($"key:{i:000}", Value));
            Assert.InRange(host.Catalog.Budget.Used, 1, host.Catalog.Budget.Limit);
        }

        Assert.Equal(fits, host.Catalog.Count());
        Assert.Equal(50, host.EvictedCount());
        Assert.Equal(host.GrainBytes(), host.Catalog.Budget.Used);
    }

    [Fact]
    public void A_growing_update_evicts_too_even_when_the_only_entries_to_evict_are_in_its_own_shard()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 1, MaxMemoryBytes = 20_000 });
        var size = host.Catalog.EstimateSize("key:000".Length, Value.Length);
        var fits = (int)(host.Catalog.Budget.Limit / size);
        for (var i = 0; i < fits; i++)
        {
            Assert.Equal(SetStatus.Created, host.Set($"key:{i:000}", Value));
        }

        var grain = host.GrainOf("counter");
        Assert.Equal(UpdateStatus.Ok, grain.Append("counter"u8, new byte[500], out var length));
        Assert.Equal(UpdateStatus.Ok, grain.IncrementBy("number"u8, 5, out var number));

        Assert.Equal(500, length);
        Assert.Equal(5, number);
        Assert.True(host.EvictedCount() > 0);
        Assert.InRange(host.Catalog.Budget.Used, 1, host.Catalog.Budget.Limit);
        Assert.Equal(host.GrainBytes(), host.Catalog.Budget.Used);
    }

    [Fact]
    public async Task MakeRoom_waits_for_a_busy_shard_instead_of_counting_it_as_empty()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 4, MaxMemoryBytes = 10_000 });
        host.Set("k", Value);
        var busy = host.ShardOf("k");
        Assert.True(host.Catalog.Budget.TryCharge(host.Catalog.Budget.Available - 10));
        using var holding = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        var holder = Task.Factory.StartNew(
            () =>
            {
                busy.EnterTurn();
                holding.Set();
                release.Wait();
                busy.ExitTurn();
            },
            TaskCreationOptions.LongRunning);
        holding.Wait();

        var evicting = Task.Factory.StartNew(() => new Evictor(host.Catalog).MakeRoom(20), TaskCreationOptions.LongRunning);
        var watched = System.Diagnostics.Stopwatch.StartNew();
        while (!evicting.IsCompleted && watched.ElapsedMilliseconds < 200)
        {
            Thread.Yield();
        }

        Assert.False(evicting.IsCompleted, "MakeRoom gave up while the only shard with entries was busy");
        release.Set();
        Assert.True(await evicting.WaitAsync(TimeSpan.FromSeconds(30)));
        await holder;
        Assert.Equal(1, host.EvictedCount());
    }
}
