namespace Cubby.Silo.Diagnostics;

/// <summary>
/// Counts kept by one connection between publishes, remembering which ones it touched so a publish costs one atomic
/// add per counter used rather than a pass over all of them. Not thread-safe: one connection's thread owns it.
/// </summary>
internal sealed class SparseCounts(int size)
{
    private readonly long[] _counts = new long[size];
    private readonly int[] _touched = new int[size];
    private int _touchedCount;

    public void Increment(int index)
    {
        if (_counts[index]++ == 0)
        {
            _touched[_touchedCount++] = index;
        }
    }

    /// <summary>Adds every count to <paramref name="totals"/> (shared, so atomically) and starts again from zero.</summary>
    public void DrainTo(long[] totals)
    {
        for (var i = 0; i < _touchedCount; i++)
        {
            var index = _touched[i];
            Interlocked.Add(ref totals[index], _counts[index]);
            _counts[index] = 0;
        }

        _touchedCount = 0;
    }
}
