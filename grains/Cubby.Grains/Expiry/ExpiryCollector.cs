namespace Cubby.Grains.Expiry;

/// <summary>
/// Removes expired entries nobody reads: the active cycle, like Redis's, samples a few of this silo's shards at a time
/// within a time budget, passes over shards without an entry that expires, stays on a shard while much of its sample
/// has expired, and goes on to more shards only while the cycle's samples are much expired. One silo-wide timer instead
/// of a timer per shard grain: 1024 grain timers cost CPU idle and flood the dashboard's call counts. The full sweep, which walks every entry so nothing expired outlives one interval,
/// is each shard grain's Orleans reminder.
/// </summary>
internal sealed class ExpiryCollector : IDisposable
{
    /// <summary>
    /// Shards with expiring entries one cycle samples before it stops, unless its samples so far are more than
    /// <see cref="SampleTally.RepeatThreshold"/> expired, as Redis samples 16 databases a cycle. Sampling every shard each
    /// cycle cost a loaded silo whose shards all held live expiring keys about 5 % of its CPU, for nothing to remove.
    /// </summary>
    internal const int ShardsPerCycle = 16;

    /// <summary>
    /// How many intervals apart cycles run while no shard holds an entry that expires: an idle silo, or one whose keys
    /// never expire, wakes once a second instead of ten times, and a key given a TTL meanwhile is sampled from the next
    /// cycle on (reads never see it expired either way: every read checks the expiry).
    /// </summary>
    private const int IdleSlowdown = 10;

    private readonly ShardCatalog _catalog;
    private readonly TimeProvider _time;
    private ITimer? _timer;
    private int _nextSlot;
    private int _running;
    private bool _slowed;

    public ExpiryCollector(ShardCatalog catalog, TimeProvider time)
    {
        _catalog = catalog;
        _time = time;
    }

    public void Start()
    {
        var options = _catalog.Options;
        _timer = _time.CreateTimer(static state => ((ExpiryCollector)state!).Tick(), this, options.ActiveExpiryInterval, options.ActiveExpiryInterval);
    }

    /// <summary>Whether the last cycle found no shard holding an entry that expires, so cycles run further apart.</summary>
    public bool IsSlowed => _slowed;

    /// <summary>One active cycle: what it removed and how many shards it sampled.</summary>
    public ActiveCycle RunActiveCycle()
    {
        var options = _catalog.Options;
        var started = _time.GetTimestamp();
        var cycle = default(SampleTally);
        var shards = 0;
        for (var visited = 0; visited < _catalog.SlotCount; visited++)
        {
            var slot = _nextSlot;
            _nextSlot = (slot + 1) % _catalog.SlotCount;
            if (_catalog.Find(slot) is { HasExpiringEntries: true } shard)
            {
                shards++;
                cycle += SampleUntilClean(shard, options.ActiveExpirySamples, started, options.ActiveExpiryBudget);
                if (shards >= ShardsPerCycle && !cycle.MuchExpired)
                {
                    break;
                }
            }

            if (_time.GetElapsedTime(started) >= options.ActiveExpiryBudget)
            {
                break;
            }
        }

        Pace(slowed: shards == 0);
        return new ActiveCycle(cycle.Expired, shards);
    }

    public void Dispose()
    {
        _timer?.Dispose();
    }

    private void Pace(bool slowed)
    {
        if (slowed == _slowed)
        {
            return;
        }

        _slowed = slowed;
        var interval = _catalog.Options.ActiveExpiryInterval * (slowed ? IdleSlowdown : 1);
        _timer?.Change(interval, interval);
    }

    private SampleTally SampleUntilClean(Shard shard, int samples, long started, TimeSpan budget)
    {
        var tally = default(SampleTally);
        while (true)
        {
            var (expired, withExpiry) = shard.RemoveExpiredSample(samples);
            var sample = new SampleTally(expired, withExpiry);
            tally += sample;
            if (!sample.MuchExpired || _time.GetElapsedTime(started) >= budget)
            {
                return tally;
            }
        }
    }

    /// <summary>Skips a tick while the previous cycle still runs, so slow cycles never pile up.</summary>
    private void Tick()
    {
        if (Interlocked.Exchange(ref _running, 1) == 1)
        {
            return;
        }

        try
        {
            RunActiveCycle();
        }
        finally
        {
            Volatile.Write(ref _running, 0);
        }
    }
}
