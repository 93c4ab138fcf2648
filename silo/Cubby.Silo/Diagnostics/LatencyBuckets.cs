using System.Diagnostics;
using System.Numerics;

namespace Cubby.Silo.Diagnostics;

/// <summary>
/// Log-spaced latency buckets: four per power of two of 100 ns units, so any bucket is at most ~19% wide and a
/// percentile read from the counts is that close. Recording is a shift and an increment.
/// </summary>
internal static class LatencyBuckets
{
    private const int SubBucketBits = 2;
    private const int SubBuckets = 1 << SubBucketBits;

    /// <summary>Up to 2^28 units (about 27 s); slower commands land in the last bucket.</summary>
    public const int Count = 28 * SubBuckets;

    /// <summary>100 ns units per <see cref="Stopwatch"/> tick.</summary>
    private static readonly double UnitsPerStopwatchTick = 10_000_000.0 / Stopwatch.Frequency;

    /// <summary>The bucket of a duration measured with <see cref="Stopwatch.GetTimestamp"/>.</summary>
    public static int Of(long elapsedStopwatchTicks)
    {
        var units = (ulong)Math.Max(0, elapsedStopwatchTicks * UnitsPerStopwatchTick) + 1;
        var exponent = BitOperations.Log2(units);
        var sub = exponent >= SubBucketBits
            ? (int)(units >> (exponent - SubBucketBits)) & (SubBuckets - 1)
            : (int)(units << (SubBucketBits - exponent)) & (SubBuckets - 1);
        return Math.Min(exponent * SubBuckets + sub, Count - 1);
    }

    /// <summary>The bound, in seconds, that every duration in <paramref name="bucket"/> is below.</summary>
    public static double UpperBoundSeconds(int bucket)
    {
        var exponent = bucket / SubBuckets;
        var sub = bucket % SubBuckets;

        // The largest unit count (duration in 100 ns units, plus one) that maps to the bucket.
        var largestUnits = exponent >= SubBucketBits
            ? ((long)(SubBuckets + sub + 1) << (exponent - SubBucketBits)) - 1
            : (long)(SubBuckets + sub) >> (SubBucketBits - exponent);
        return largestUnits * 100e-9;
    }

    /// <summary>The upper bound of the bucket holding the <paramref name="quantile"/> of <paramref name="counts"/>; 0 when empty.</summary>
    public static double Quantile(ReadOnlySpan<long> counts, double quantile)
    {
        long total = 0;
        foreach (var count in counts)
        {
            total += count;
        }

        if (total == 0)
        {
            return 0;
        }

        var rank = (long)Math.Ceiling(total * quantile);
        long seen = 0;
        for (var bucket = 0; bucket < counts.Length; bucket++)
        {
            seen += counts[bucket];
            if (seen >= rank)
            {
                return UpperBoundSeconds(bucket);
            }
        }

        return UpperBoundSeconds(counts.Length - 1);
    }
}
