using System.Numerics;

namespace Cubby.Grains.Tracking;

/// <summary>
/// Reader numbers (see <see cref="ReadTracking"/>): those below 64 as bits of one word, so the usual few door silos and
/// near caches of a key cost no allocation; any others in a small sorted array, copied on change (a shard changes it
/// in its turn only).
/// </summary>
internal readonly struct ReaderSet
{
    private readonly ulong _low;
    private readonly int[]? _high;

    private ReaderSet(ulong low, int[]? high) => (_low, _high) = (low, high);

    public bool IsEmpty => _low == 0 && _high is null;

    /// <summary>This set with <paramref name="reader"/> in it.</summary>
    public ReaderSet With(int reader)
    {
        if (reader < 64)
        {
            return new(_low | (1UL << reader), _high);
        }

        if (_high is null)
        {
            return new(_low, [reader]);
        }

        var index = Array.BinarySearch(_high, reader);
        if (index >= 0)
        {
            return this;
        }

        index = ~index;
        var high = new int[_high.Length + 1];
        _high.AsSpan(0, index).CopyTo(high);
        high[index] = reader;
        _high.AsSpan(index).CopyTo(high.AsSpan(index + 1));
        return new(_low, high);
    }

    /// <summary>The readers of either set.</summary>
    public ReaderSet Union(ReaderSet other)
    {
        var set = new ReaderSet(_low | other._low, _high);
        foreach (var reader in other._high ?? [])
        {
            set = set.With(reader);
        }

        return set;
    }

    /// <summary>The readers, lowest first.</summary>
    public Enumerator GetEnumerator() => new(_low, _high);

    /// <summary>Walks the bits of the low word, then the high array; allocates nothing.</summary>
    public struct Enumerator(ulong low, int[]? high)
    {
        private ulong _bits = low;
        private int _next = -1;

        public int Current { get; private set; }

        public bool MoveNext()
        {
            if (_bits != 0)
            {
                Current = BitOperations.TrailingZeroCount(_bits);
                _bits &= _bits - 1;
                return true;
            }

            if (high is not null && ++_next < high.Length)
            {
                Current = high[_next];
                return true;
            }

            return false;
        }
    }
}
