using Cubby.Grains;
using Cubby.Grains.Expiry;
using Cubby.Grains.Hosting;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class ExpiryCollectorTests
{
    private static readonly byte[] Value = new byte[16];

    [Fact]
    public void RunActiveCycle_removes_expired_entries_nobody_touches_and_keeps_live_ones()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 64 });
        using var collector = new ExpiryCollector(host.Catalog, host.Time);
        for (var i = 0; i < 2000; i++)
        {
            host.Set($"expired:{i}", Value, new ExpirySpec(host.Now + 1000));
        }

        for (var i = 0; i < 300; i++)
        {
            host.Set($"expiring-later:{i}", Value, new ExpirySpec(host.Now + 3_600_000));
            host.Set($"forever:{i}", Value);
        }

        host.Advance(1000);
        Assert.Equal(2600, host.Catalog.Count());

        var removed = collector.RunActiveCycle().Removed;

        Assert.InRange(removed, 1800, 2000);
        Assert.Equal(2600 - removed, host.Catalog.Count());
        Assert.Equal(removed, host.ExpiredCount());
        Assert.Equal(host.GrainBytes(), host.Catalog.Budget.Used);
        for (var i = 0; i < 300; i++)
        {
            Assert.True(host.Exists($"expiring-later:{i}"));
            Assert.True(host.Exists($"forever:{i}"));
        }
    }

    [Fact]
    public void RunActiveCycle_removes_nothing_before_anything_expires()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 16 });
        using var collector = new ExpiryCollector(host.Catalog, host.Time);
        for (var i = 0; i < 500; i++)
        {
            host.Set($"k:{i}", Value, new ExpirySpec(host.Now + 1000));
        }

        host.Advance(999);

        Assert.Equal(0, collector.RunActiveCycle().Removed);
        Assert.Equal(500, host.Catalog.Count());
    }

    [Fact]
    public void A_shard_has_expiring_entries_exactly_while_one_of_its_keys_has_a_ttl()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 1 });
        var shard = host.GrainOf("a");
        host.Set("a", Value);
        Assert.False(shard.HasExpiringEntries);

        host.Set("b", Value, new ExpirySpec(host.Now + 1000));
        Assert.True(shard.HasExpiringEntries);
        Assert.True(shard.Persist("b"u8));
        Assert.False(shard.HasExpiringEntries);

        Assert.True(shard.Expire("a"u8, host.Now + 500, ExpireCondition.Always));
        Assert.True(shard.HasExpiringEntries);
        host.Set("a", Value);
        Assert.False(shard.HasExpiringEntries);

        host.Set("c", Value, new ExpirySpec(host.Now + 10));
        host.Advance(10);
        using var collector = new ExpiryCollector(host.Catalog, host.Time);
        Assert.Equal(1, collector.RunActiveCycle().Removed);
        Assert.False(shard.HasExpiringEntries);
    }

    [Fact]
    public void A_cycle_whose_samples_are_live_stops_after_a_few_shards()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 64 });
        using var collector = new ExpiryCollector(host.Catalog, host.Time);
        for (var i = 0; i < 6400; i++)
        {
            host.Set($"live:{i}", Value, new ExpirySpec(host.Now + 3_600_000));
        }

        Assert.True(host.ActiveGrains().Count() > 2 * ExpiryCollector.ShardsPerCycle);
        for (var cycle = 0; cycle < 3; cycle++)
        {
            Assert.Equal(new ActiveCycle(0, ExpiryCollector.ShardsPerCycle), collector.RunActiveCycle());
        }

        Assert.False(collector.IsSlowed);
    }

    [Fact]
    public void A_cycle_whose_samples_are_much_expired_goes_on_past_the_first_few_shards()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 64 });
        using var collector = new ExpiryCollector(host.Catalog, host.Time);
        for (var i = 0; i < 6400; i++)
        {
            host.Set($"k:{i}", Value, new ExpirySpec(host.Now + (i % 2 == 0 ? 1000 : 3_600_000)));
        }

        host.Advance(1000);
        var run = collector.RunActiveCycle();

        Assert.Equal(host.ActiveGrains().Count(), run.ShardsSampled);
        Assert.Equal(run.Removed, 6400 - host.Catalog.Count());
        Assert.True(run.Removed > 0);
    }

    [Fact]
    public void Start_runs_active_cycles_on_the_timer_each_interval()
    {
        var settings = new ShardOptions { KeptForReuseBytes = 0, SlotCount = 16, ActiveExpiryInterval = TimeSpan.FromMilliseconds(100), FullSweepInterval = TimeSpan.FromHours(1) };
        using var host = new CatalogHost(settings);
        using var collector = new ExpiryCollector(host.Catalog, host.Time);
        for (var i = 0; i < 500; i++)
        {
            host.Set($"expired:{i}", Value, new ExpirySpec(host.Now + 50));
        }

        for (var i = 0; i < 100; i++)
        {
            host.Set($"forever:{i}", Value);
        }

        collector.Start();
        host.Advance(99);
        Assert.Equal(600, host.Catalog.Count());

        host.Advance(1);
        Assert.InRange(host.Catalog.Count(), 100, 150);

        host.Time.Advance(settings.ActiveExpiryInterval * 20);
        Assert.Equal(100, host.Catalog.Count());
        Assert.Equal(500, host.ExpiredCount());
        Assert.Equal(host.GrainBytes(), host.Catalog.Budget.Used);
    }

    [Fact]
    public void Cycles_run_ten_times_further_apart_while_no_shard_holds_an_entry_that_expires()
    {
        var settings = new ShardOptions { KeptForReuseBytes = 0, SlotCount = 16, ActiveExpiryInterval = TimeSpan.FromMilliseconds(100), FullSweepInterval = TimeSpan.FromHours(1) };
        using var host = new CatalogHost(settings);
        using var collector = new ExpiryCollector(host.Catalog, host.Time);
        host.Set("forever", Value);
        collector.Start();
        host.Advance(100);
        Assert.True(collector.IsSlowed);

        for (var i = 0; i < 100; i++)
        {
            host.Set($"expiring:{i}", Value, new ExpirySpec(host.Now + 50));
        }

        // The next cycle is a second after the last one, not 100 ms.
        for (var elapsed = 0; elapsed < 800; elapsed += 100)
        {
            host.Advance(100);
        }

        Assert.Equal(101, host.Catalog.Count());
        host.Advance(100);
        host.Advance(100);
        Assert.InRange(host.Catalog.Count(), 1, 60);
        Assert.False(collector.IsSlowed);

        host.Advance(100);
        host.Advance(100);
        Assert.Equal(1, host.Catalog.Count());
    }

    [Fact]
    public void Dispose_stops_the_timers()
    {
        var settings = new ShardOptions { KeptForReuseBytes = 0, SlotCount = 4, ActiveExpiryInterval = TimeSpan.FromMilliseconds(100), FullSweepInterval = TimeSpan.FromSeconds(1) };
        using var host = new CatalogHost(settings);
        var collector = new ExpiryCollector(host.Catalog, host.Time);
        collector.Start();
        for (var i = 0; i < 50; i++)
        {
            host.Set($"expired:{i}", Value, new ExpirySpec(host.Now + 10));
        }

        collector.Dispose();
        host.Time.Advance(TimeSpan.FromSeconds(10));

        Assert.Equal(50, host.Catalog.Count());
    }

    [Fact]
    public void The_full_sweep_each_shard_reminder_runs_removes_every_expired_entry_and_nothing_else()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 32 });
        var start = host.Now;
        for (var i = 0; i < 1000; i++)
        {
            host.Set($"expired:{i}", Value, new ExpirySpec(start + 1 + (i % 500)));
            host.Set($"later:{i % 500}", Value, new ExpirySpec(start + 501 + i));
        }

        for (var i = 0; i < 500; i++)
        {
            host.Set($"forever:{i}", Value);
        }

        host.Advance(500);

        Assert.Equal(1000, host.ActiveGrains().Sum(static shard => shard.RemoveAllExpired()));
        Assert.Equal(1000, host.Catalog.Count());
        Assert.Equal(1000, host.ExpiredCount());
        Assert.Equal(host.GrainBytes(), host.Catalog.Budget.Used);
        Assert.Equal(0, host.ActiveGrains().Sum(static shard => shard.RemoveAllExpired()));
        for (var i = 0; i < 500; i++)
        {
            Assert.True(host.Exists($"later:{i}"));
            Assert.True(host.Exists($"forever:{i}"));
        }
    }

    [Fact]
    public void Cycles_ignore_slots_whose_grain_was_never_activated()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 128 });
        using var collector = new ExpiryCollector(host.Catalog, host.Time);
        host.Set("only", Value, new ExpirySpec(host.Now + 1));
        host.Advance(1);

        Assert.Equal(1, collector.RunActiveCycle().Removed);
        Assert.Single(host.ActiveGrains());
    }
}
