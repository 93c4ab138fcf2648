namespace Cubby.Grains.Capacity;

/// <summary>
/// The byte budget shared by every grain of a silo. A write charges its growth before it changes anything,
/// so concurrent writers can never push the total past <see cref="Ceiling"/>: the <see cref="Limit"/> less the freed
/// blocks the stores may keep for reuse, so entries and kept blocks together stay within the limit.
/// </summary>
internal sealed class MemoryBudget
{
    private long _used;

    public MemoryBudget(long limit, long keptForReuse = 0)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(limit);
        ArgumentOutOfRangeException.ThrowIfNegative(keptForReuse);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(keptForReuse, limit / 2);
        Limit = limit;
        Ceiling = limit - keptForReuse;
    }

    public long Limit { get; }

    /// <summary>What the entries may use: <see cref="Limit"/> less the most bytes of freed blocks the stores keep for reuse.</summary>
    public long Ceiling { get; }

    public long Used => Volatile.Read(ref _used);

    public long Available => Ceiling - Used;

    /// <summary>Charges <paramref name="bytes"/> if they fit; returns false (charging nothing) if they do not.</summary>
    public bool TryCharge(long bytes)
    {
        if (bytes <= 0)
        {
            Release(-bytes);
            return true;
        }

        var used = Volatile.Read(ref _used);
        while (true)
        {
            if (used + bytes > Ceiling)
            {
                return false;
            }

            var seen = Interlocked.CompareExchange(ref _used, used + bytes, used);
            if (seen == used)
            {
                return true;
            }

            used = seen;
        }
    }

    public void Release(long bytes)
    {
        if (bytes != 0)
        {
            Interlocked.Add(ref _used, -bytes);
        }
    }
}
