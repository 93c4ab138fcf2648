namespace Cubby.Silo.Commands;

/// <summary>
/// The saves of the whole cluster this silo ran (SAVE, BGSAVE): whether one runs in the background, whether another is
/// scheduled after it, when the last one ended and how, and how many changes this silo's shards had recorded then.
/// LASTSAVE and INFO persistence read it; before any save, the last is taken to be when the silo started, as Redis
/// does.
/// </summary>
internal sealed class ClusterSaves(TimeProvider time)
{
    private int _running;
    private int _scheduled;
    private long _lastSave = time.GetUtcNow().ToUnixTimeSeconds();
    private long _changesAtLastSave;
    private volatile bool _lastSucceeded = true;

    /// <summary>When the last save ended (Unix seconds), or the silo started.</summary>
    public long LastSave => Interlocked.Read(ref _lastSave);

    /// <summary>Whether the last save wrote every shard.</summary>
    public bool LastSucceeded => _lastSucceeded;

    /// <summary>Whether a BGSAVE runs.</summary>
    public bool InBackground => Volatile.Read(ref _running) != 0;

    /// <summary>The changes recorded when the last save ended (<see cref="Grains.Reports.PersistenceFigures.ChangesRecorded"/>).</summary>
    public long ChangesAtLastSave => Interlocked.Read(ref _changesAtLastSave);

    /// <summary>Takes the background slot; false when a BGSAVE already runs.</summary>
    public bool TryBeginBackground() => Interlocked.CompareExchange(ref _running, 1, 0) == 0;

    /// <summary>Has a BGSAVE run again once the one running ends (BGSAVE SCHEDULE).</summary>
    public void Schedule() => Volatile.Write(ref _scheduled, 1);

    /// <summary>Ends a background save; true when one was scheduled meanwhile, which the caller runs next, still holding the slot.</summary>
    public bool EndBackground()
    {
        if (Interlocked.Exchange(ref _scheduled, 0) == 1)
        {
            return true;
        }

        Volatile.Write(ref _running, 0);

        // Scheduled between the two: taken back, unless another BGSAVE took the slot first.
        return Volatile.Read(ref _scheduled) == 1 && Interlocked.Exchange(ref _scheduled, 0) == 1 && TryBeginBackground();
    }

    /// <summary>Notes a save that ended, whether it wrote every shard, and the changes recorded by then.</summary>
    public void Ended(bool succeeded, long changes)
    {
        _lastSucceeded = succeeded;
        if (succeeded)
        {
            Interlocked.Exchange(ref _lastSave, time.GetUtcNow().ToUnixTimeSeconds());
            Interlocked.Exchange(ref _changesAtLastSave, changes);
        }
    }
}
