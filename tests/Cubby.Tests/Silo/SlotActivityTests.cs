using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Silo.Diagnostics;
using Cubby.Tests.Grains;

namespace Cubby.Tests.Silo;

public sealed class SlotActivityTests
{
    [Fact]
    public void Busiest_ranks_by_calls_then_by_slot_and_leaves_idle_slots_out()
    {
        using var host = new CatalogHost(new ShardOptions { SlotCount = 64 });
        var activity = new SlotActivity(host.Catalog);
        int[] calls = [0, 5, 9, 5, 1, 0, 9, 2, 7, 5];
        for (var slot = 0; slot < calls.Length; slot++)
        {
            Call(host.Catalog, slot, calls[slot]);
        }

        activity.Sample();

        Assert.Equal([2, 6, 8, 1, 3], activity.Busiest(5).Select(static busy => busy.Slot));
        Assert.Equal([2, 6, 8, 1, 3, 9, 7, 4], activity.Busiest(20).Select(static busy => busy.Slot));
        Assert.Equal(9.0, activity.Busiest(1)[0].OpsPerSecond);
    }

    [Fact]
    public void Busiest_counts_the_window_not_the_last_second()
    {
        using var host = new CatalogHost(new ShardOptions { SlotCount = 16 });
        var activity = new SlotActivity(host.Catalog);
        Call(host.Catalog, 3, 10);
        activity.Sample();
        Call(host.Catalog, 7, 4);
        activity.Sample();

        var busiest = activity.Busiest(2);
        Assert.Equal([3, 7], busiest.Select(static busy => busy.Slot));
        Assert.Equal([5.0, 2.0], busiest.Select(static busy => busy.OpsPerSecond));
    }

    private static void Call(ShardCatalog catalog, int slot, int times)
    {
        var shard = catalog.GetOrCreate(slot);
        for (var i = 0; i < times; i++)
        {
            shard.EnterTurn();
            shard.ExitTurn();
        }
    }
}
