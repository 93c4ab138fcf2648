using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class KeyspaceTests
{
    [Fact]
    public void VisitKeys_gives_every_live_key_once_and_drops_the_expired_ones()
    {
        using var host = new SingleGrain();
        var expected = new HashSet<string>();
        for (var i = 0; i < 200; i++)
        {
            var expires = i % 3 == 0;
            host.Set($"k{i}", "v", expires ? new ExpirySpec(host.Now + 100) : new ExpirySpec(host.Now + 10_000));
            if (!expires)
            {
                expected.Add($"k{i}");
            }
        }

        host.Advance(100);
        var sink = new KeyList();
        host.Grain.VisitKeys(ref sink);

        Assert.Equal(expected.Count, sink.Keys.Count);
        Assert.Equal(expected, sink.Keys.ToHashSet());
        Assert.Equal(expected.Count, host.Grain.Count);
        Assert.Equal(200 - expected.Count, host.Grain.ExpiredCount);
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
    }

    [Fact]
    public void VisitKeys_of_an_empty_grain_gives_nothing()
    {
        using var host = new SingleGrain();
        var sink = new KeyList();

        host.Grain.VisitKeys(ref sink);

        Assert.Empty(sink.Keys);
    }

    [Fact]
    public void Clear_returns_the_count_and_releases_the_budget()
    {
        using var host = new SingleGrain();
        for (var i = 0; i < 50; i++)
        {
            host.Set($"k{i}", new string('v', i));
        }

        Assert.True(host.Budget.Used > 0);

        Assert.Equal(50, host.Grain.Clear());

        Assert.Equal(0, host.Grain.Count);
        Assert.Equal(0, host.Grain.UsedBytes);
        Assert.Equal(0, host.Budget.Used);
        Assert.Null(host.Get("k1"));
        Assert.Equal(0, host.Grain.Clear());
    }

    [Fact]
    public void Clear_of_one_grain_leaves_the_budget_charged_for_the_others()
    {
        using var host = new CatalogHost(new ShardOptions { KeptForReuseBytes = 0, SlotCount = 2 });
        var first = host.Turns.Hold(host.Catalog.GetOrCreate(0));
        var second = host.Turns.Hold(host.Catalog.GetOrCreate(1));
        var none = default(NoReader);
        var request = new SetRequest(WriteCondition.Always, ExpirySpec.Never);
        first.Set(SingleGrain.Bytes("a"), SingleGrain.Bytes("1"), request, ref none);
        second.Set(SingleGrain.Bytes("b"), SingleGrain.Bytes("22"), request, ref none);

        Assert.Equal(1, first.Clear());

        Assert.Equal(second.UsedBytes, host.Catalog.Budget.Used);
        Assert.True(second.Exists(SingleGrain.Bytes("b")));
    }
}
