namespace Cubby.Grains.Capacity;

/// <summary>
/// The byte budget shared by every grain of a silo. A write charges its growth before it changes anything,
/// so concurrent writers can never push the total past <see cref="Limit"/>.
/// </summary>
internal sealed class MemoryBudget(long limit)
{
    private long _used;

    public long Limit { get; } = limit > 0 ? limit : throw new ArgumentOutOfRangeException(nameof(limit), limit, "The memory budget must be positive.");

    public long Used => Volatile.Read(ref _used);

    public long Available => Limit - Used;

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
            if (used + bytes > Limit)
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
