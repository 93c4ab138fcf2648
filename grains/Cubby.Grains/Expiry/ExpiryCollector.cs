namespace Cubby.Grains.Expiry;

/// <summary>
/// Removes expired entries nobody reads. The active cycle, like Redis's, samples a few grains at a time within a time
/// budget and stays on a grain while much of its sample has expired; the full sweep, the grains' periodic
/// "reminder", walks every entry of every grain so nothing expired outlives one sweep interval.
/// </summary>
internal sealed class ExpiryCollector : IDisposable
{
    /// <summary>A grain whose sample is more than this share expired is sampled again in the same cycle.</summary>
    private const double RepeatThreshold = 0.10;

    private readonly ShardCatalog _catalog;
    private readonly TimeProvider _time;
    private ITimer? _activeTimer;
    private ITimer? _sweepTimer;
    private int _nextSlot;
    private int _activeRunning;
    private int _sweepRunning;

    public ExpiryCollector(ShardCatalog catalog, TimeProvider time)
    {
        _catalog = catalog;
        _time = time;
    }

    public void Start()
    {
        var settings = _catalog.Settings;
        _activeTimer = _time.CreateTimer(static state => Tick((ExpiryCollector)state!, active: true), this, settings.ActiveExpiryInterval, settings.ActiveExpiryInterval);
        _sweepTimer = _time.CreateTimer(static state => Tick((ExpiryCollector)state!, active: false), this, settings.FullSweepInterval, settings.FullSweepInterval);
    }

    /// <summary>One active cycle; returns the entries removed.</summary>
    public int RunActiveCycle()
    {
        var settings = _catalog.Settings;
        var started = _time.GetTimestamp();
        var removed = 0;
        for (var visited = 0; visited < _catalog.SlotCount; visited++)
        {
            var slot = _nextSlot;
            _nextSlot = (slot + 1) % _catalog.SlotCount;
            if (_catalog.Find(slot) is { } grain)
            {
                removed += SampleUntilClean(grain, settings.ActiveExpirySamples, started, settings.ActiveExpiryBudget);
            }

            if (_time.GetElapsedTime(started) >= settings.ActiveExpiryBudget)
            {
                break;
            }
        }

        return removed;
    }

    /// <summary>One full sweep of every grain; returns the entries removed.</summary>
    public int RunFullSweep()
    {
        var removed = 0;
        for (var slot = 0; slot < _catalog.SlotCount; slot++)
        {
            removed += _catalog.Find(slot)?.RemoveAllExpired() ?? 0;
        }

        return removed;
    }

    public void Dispose()
    {
        _activeTimer?.Dispose();
        _sweepTimer?.Dispose();
    }

    private int SampleUntilClean(Shard grain, int samples, long started, TimeSpan budget)
    {
        var removed = 0;
        while (true)
        {
            var (expired, withExpiry) = grain.RemoveExpiredSample(samples);
            removed += expired;
            if (withExpiry == 0 || expired <= withExpiry * RepeatThreshold || _time.GetElapsedTime(started) >= budget)
            {
                return removed;
            }
        }
    }

    /// <summary>
    /// Skips a tick while the previous tick of the same kind still runs, so slow cycles never pile up; the two kinds
    /// never skip each other, so a sweep always runs once per interval.
    /// </summary>
    private static void Tick(ExpiryCollector collector, bool active)
    {
        ref var running = ref active ? ref collector._activeRunning : ref collector._sweepRunning;
        if (Interlocked.Exchange(ref running, 1) == 1)
        {
            return;
        }

        try
        {
            _ = active ? collector.RunActiveCycle() : collector.RunFullSweep();
        }
        finally
        {
            Volatile.Write(ref running, 0);
        }
    }
}
