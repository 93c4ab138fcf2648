using System.Numerics;

namespace Cubby.Load.Workloads;

/// <summary>
/// A log-linear latency histogram in nanoseconds: exact below 128 ns, then 64 buckets per power of two, so any value
/// is reported within 1.6% of what was recorded. Recording is a few instructions and never allocates; each caller
/// has its own histogram and they are merged at the end.
/// </summary>
internal sealed class LatencyHistogram
{
    private const int SubBucketBits = 6;
    private const int SubBuckets = 1 << SubBucketBits;
    private const int LinearLimit = 2 * SubBuckets;

    // Enough buckets for values up to 2^63 ns.
    private readonly long[] _counts = new long[SubBuckets * (64 - SubBucketBits) + SubBuckets];

    public long Count { get; private set; }

    public void Record(long nanoseconds)
    {
        _counts[IndexOf(Math.Max(0, nanoseconds))]++;
        Count++;
    }

    public void Add(LatencyHistogram other)
    {
        for (var i = 0; i < _counts.Length; i++)
        {
            _counts[i] += other._counts[i];
        }

        Count += other.Count;
    }

    /// <summary>The value at <paramref name="quantile"/> (0.99 for p99) in nanoseconds: the middle of its bucket.</summary>
    public double ValueAt(double quantile)
    {
        if (Count == 0)
        {
            return 0;
        }

        var rank = Math.Max(1, (long)Math.Ceiling(quantile * Count));
        long seen = 0;
        for (var i = 0; i < _counts.Length; i++)
        {
            seen += _counts[i];
            if (seen >= rank)
            {
                return MidpointOf(i);
            }
        }

        return MidpointOf(_counts.Length - 1);
    }

    internal static int IndexOf(long value)
    {
        if (value < LinearLimit)
        {
            return (int)value;
        }

        var shift = 63 - BitOperations.LeadingZeroCount((ulong)value) - SubBucketBits;
        return (shift * SubBuckets) + (int)(value >> shift);
    }

    internal static double MidpointOf(int index)
    {
        if (index < LinearLimit)
        {
            return index;
        }

        var shift = (index / SubBuckets) - 1;
        var mantissa = (index % SubBuckets) + SubBuckets;
        return ((long)mantissa << shift) + ((1L << shift) / 2.0);
    }
}
