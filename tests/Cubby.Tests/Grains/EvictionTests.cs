using Cubby.Grains;
using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class EvictionTests
{
    private static readonly byte[] Value = new byte[32];

    [Fact]
    public void EvictOne_of_an_empty_grain_frees_nothing()
    {
        using var host = new SingleGrain();

        Assert.Equal(0, host.Grain.EvictOne(5));
        Assert.Equal(0, host.Grain.EvictedCount);
    }

    [Fact]
    public void EvictOne_removes_one_entry_and_returns_its_size()
    {
        using var host = new SingleGrain();
        host.Set("a", "value");
        host.Set("bb", "longer value");
        var used = host.Budget.Used;

        var freed = host.Grain.EvictOne(5);

        Assert.Equal(1, host.Grain.Count);
        Assert.Equal(1, host.Grain.EvictedCount);
        Assert.Equal(0, host.Grain.ExpiredCount);
        Assert.Equal(used - freed, host.Budget.Used);
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
        using var sizer = new ManagedEntryStore();
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

            Assert.True(host.Grain.EvictOne(64) > 0);

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

            host.Grain.EvictOne(64);

            Assert.Null(host.Get("old"));
            Assert.Equal("v", host.Get("new"));
            Assert.Equal("v", host.Get("newer"));
        }
    }

    [Fact]
    public void MakeRoom_evicts_until_the_bytes_fit_so_writes_succeed()
    {
        using var host = new CatalogHost(new GrainSettings { SlotCount = 8, MaxMemoryBytes = 20_000 });
        var evictor = new Evictor(host.Catalog);
        var size = host.Catalog.EstimateSize("key:000".Length, Value.Length);
        var fits = (int)(host.Catalog.Budget.Limit / size);
        for (var i = 0; i < fits; i++)
        {
            Assert.Equal(SetStatus.Created, host.Set($"key:{i:000}", Value));
        }

        Assert.Equal(SetStatus.OutOfMemory, host.Set("key:new", Value));

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
        using var host = new CatalogHost(new GrainSettings { SlotCount = 4, MaxMemoryBytes = 20_000, EvictionSamples = 64 });
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
        using var host = new CatalogHost(new GrainSettings { SlotCount = 4, MaxMemoryBytes = 10_000 });
        host.Set("k", Value);

        Assert.False(new Evictor(host.Catalog).MakeRoom(10_001));

        Assert.Equal(1, host.Catalog.Count());
    }

    [Fact]
    public void MakeRoom_gives_up_when_every_grain_is_empty_and_the_bytes_still_do_not_fit()
    {
        using var host = new CatalogHost(new GrainSettings { SlotCount = 4, MaxMemoryBytes = 10_000 });
        host.Set("k", Value);
        Assert.True(host.Catalog.Budget.TryCharge(host.Catalog.Budget.Available - 10));

        Assert.False(new Evictor(host.Catalog).MakeRoom(1000));

        Assert.Equal(0, host.Catalog.Count());
        Assert.Equal(1, host.EvictedCount());
    }

    [Fact]
    public void MakeRoom_evicts_nothing_when_the_bytes_already_fit()
    {
        using var host = new CatalogHost(new GrainSettings { SlotCount = 4, MaxMemoryBytes = 10_000 });
        host.Set("k", Value);

        Assert.True(new Evictor(host.Catalog).MakeRoom(1000));

        Assert.Equal(1, host.Catalog.Count());
        Assert.Equal(0, host.EvictedCount());
    }
}
