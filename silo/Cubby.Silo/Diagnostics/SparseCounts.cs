namespace Cubby.Silo.Diagnostics;

/// <summary>
/// Counts kept by one connection between publishes to shared <c>totals</c>: only the few counters a batch touches, so
/// a connection holds a few hundred bytes however many counters there are, and a publish costs one atomic add per
/// counter used. Not thread-safe: one connection's thread owns it.
/// </summary>
internal sealed class SparseCounts(long[] totals)
{
    /// <summary>Counters held at once; touching one more publishes those held first.</summary>
    public const int Capacity = 16;

    private readonly int[] _indexes = new int[Capacity];
    private readonly long[] _counts = new long[Capacity];
    private int _used;

    public void Increment(int index)
    {
        for (var i = 0; i < _used; i++)
        {
            if (_indexes[i] == index)
            {
                _counts[i]++;
                return;
            }
        }

        if (_used == Capacity)
        {
            Publish();
        }

        _indexes[_used] = index;
        _counts[_used++] = 1;
    }

    /// <summary>Adds every count to the totals (shared, so atomically) and starts again from zero.</summary>
    public void Publish()
    {
        for (var i = 0; i < _used; i++)
        {
            Interlocked.Add(ref totals[_indexes[i]], _counts[i]);
        }

        _used = 0;
    }
}
