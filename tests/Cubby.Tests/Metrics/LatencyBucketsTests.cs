using System.Diagnostics;
using Cubby.Silo.Diagnostics;

namespace Cubby.Tests.Metrics;

/// <summary>The latency histogram's buckets: every duration lands in the bucket whose bounds hold it.</summary>
public sealed class LatencyBucketsTests
{
    [Theory]
    [InlineData(0.0)]
    [InlineData(50e-9)]
    [InlineData(150e-9)]
    [InlineData(1e-6)]
    [InlineData(3.3e-6)]
    [InlineData(120e-6)]
    [InlineData(0.004)]
    [InlineData(0.25)]
    [InlineData(2.0)]
    public void A_duration_is_below_its_bucket_bound_and_not_below_the_previous_one(double seconds)
    {
        var ticks = (long)(seconds * Stopwatch.Frequency);
        var bucket = LatencyBuckets.Of(ticks);
        Assert.True(seconds < LatencyBuckets.UpperBoundSeconds(bucket) + 1e-12, $"{seconds}s in bucket {bucket} bounded by {LatencyBuckets.UpperBoundSeconds(bucket)}");
        Assert.True(bucket == 0 || seconds >= LatencyBuckets.UpperBoundSeconds(bucket - 1) - 1e-12, $"{seconds}s in bucket {bucket} but below {LatencyBuckets.UpperBoundSeconds(bucket - 1)}");
        Assert.True(LatencyBuckets.UpperBoundSeconds(bucket) <= Math.Max(seconds * 1.3, 300e-9), $"bucket {bucket} is too wide for {seconds}s");
    }

    [Fact]
    public void Bounds_rise_with_the_bucket()
    {
        for (var bucket = 1; bucket < LatencyBuckets.Count; bucket++)
        {
            Assert.True(LatencyBuckets.UpperBoundSeconds(bucket) >= LatencyBuckets.UpperBoundSeconds(bucket - 1));
        }
    }

    [Fact]
    public void The_quantile_is_the_bound_of_the_bucket_that_reaches_it()
    {
        var counts = new long[LatencyBuckets.Count];
        counts[LatencyBuckets.Of((long)(10e-6 * Stopwatch.Frequency))] = 99;
        var slow = LatencyBuckets.Of((long)(0.005 * Stopwatch.Frequency));
        counts[slow] = 1;
        Assert.True(LatencyBuckets.Quantile(counts, 0.99) < 20e-6);
        Assert.Equal(LatencyBuckets.UpperBoundSeconds(slow), LatencyBuckets.Quantile(counts, 1.0));
        Assert.Equal(0, LatencyBuckets.Quantile(new long[LatencyBuckets.Count], 0.99));
    }
}
