using Cubby.Silo.Diagnostics;

namespace Cubby.Tests.Metrics;

public sealed class SparseCountsTests
{
    [Fact]
    public void Counts_reach_the_totals_only_when_published()
    {
        var totals = new long[8];
        var counts = new SparseCounts(totals);
        counts.Increment(3);
        counts.Increment(3);
        counts.Increment(5);

        Assert.All(totals, static total => Assert.Equal(0, total));
        counts.Publish();
        Assert.Equal([0, 0, 0, 2, 0, 1, 0, 0], totals);

        counts.Publish();
        counts.Increment(3);
        counts.Publish();
        Assert.Equal([0, 0, 0, 3, 0, 1, 0, 0], totals);
    }

    [Fact]
    public void More_counters_than_it_holds_lose_no_count()
    {
        var totals = new long[400];
        var counts = new SparseCounts(totals);
        var expected = new long[totals.Length];
        for (var round = 0; round < 3; round++)
        {
            for (var index = 0; index < totals.Length; index += 7)
            {
                for (var times = 0; times <= index % 4; times++)
                {
                    counts.Increment(index);
                    expected[index]++;
                }
            }
        }

        counts.Publish();
        Assert.Equal(expected, totals);
    }
}
