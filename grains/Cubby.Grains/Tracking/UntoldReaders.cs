namespace Cubby.Grains.Tracking;

/// <summary>
/// The near caches one shard's changes were sent to and that may not have taken them yet, each with the number of the
/// last invalidation sent: whoever answers a change made in the shard's turn waits for them first
/// (<see cref="WhenToldAsync"/>), so no near cache serves the old value once the change is answered. Empty when no near
/// cache read the shard's changed keys, which costs one check.
/// </summary>
internal sealed class UntoldReaders
{
    private readonly Lock _gate = new();
    private readonly List<(NearCacheLink Link, long Number)> _untold = [];
    private int _count;

    public bool IsEmpty => Volatile.Read(ref _count) == 0;

    /// <summary>Invalidation <paramref name="number"/> went to <paramref name="link"/>.</summary>
    public void Add(NearCacheLink link, long number)
    {
        lock (_gate)
        {
            var index = _untold.FindIndex(untold => untold.Link == link);
            if (index < 0)
            {
                _untold.Add((link, number));
                Volatile.Write(ref _count, _untold.Count);
            }
            else
            {
                _untold[index] = (link, Math.Max(number, _untold[index].Number));
            }
        }
    }

    /// <summary>
    /// Completes once every near cache sent an invalidation so far took it, or its leases from before then ran out;
    /// <paramref name="except"/>, the caller's own, is not waited for.
    /// </summary>
    public ValueTask WhenToldAsync(NearCacheLink? except = null)
    {
        (NearCacheLink Link, long Number)[] waits;
        lock (_gate)
        {
            _untold.RemoveAll(static untold => untold.Link.Told(untold.Number));
            Volatile.Write(ref _count, _untold.Count);
            var others = 0;
            foreach (var untold in _untold)
            {
                others += untold.Link != except ? 1 : 0;
            }

            if (others == 0)
            {
                return ValueTask.CompletedTask;
            }

            waits = new (NearCacheLink Link, long Number)[others];
            var next = 0;
            foreach (var untold in _untold)
            {
                if (untold.Link != except)
                {
                    waits[next++] = untold;
                }
            }
        }

        return WaitAsync(waits);
    }

    private async ValueTask WaitAsync((NearCacheLink Link, long Number)[] waits)
    {
        foreach (var (link, number) in waits)
        {
            await link.WhenToldAsync(number).ConfigureAwait(false);
        }

        lock (_gate)
        {
            // Those told or out of lease now; a later invalidation to the same reader stays for its own change.
            _untold.RemoveAll(untold => Array.Exists(waits, wait => wait.Link == untold.Link && wait.Number >= untold.Number));
            Volatile.Write(ref _count, _untold.Count);
        }
    }
}
