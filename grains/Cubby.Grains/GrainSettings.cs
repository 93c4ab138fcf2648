namespace Cubby.Grains;

/// <summary>How a silo's grains store, expire and evict entries.</summary>
internal sealed record GrainSettings
{
    public int SlotCount { get; init; } = Sharding.ShardMap.DefaultSlotCount;

    public int MaxKeyBytes { get; init; } = CubbyDefaults.MaxKeyBytes;

    public int MaxValueBytes { get; init; } = CubbyDefaults.MaxValueBytes;

    public long MaxMemoryBytes { get; init; } = 1L << 30;

    /// <summary>The most bytes of freed entry blocks the stores keep for reuse, held back from the entries' budget.</summary>
    public long KeptForReuseBytes { get; init; }

    /// <summary>Entries sampled per eviction, as Redis's maxmemory-samples.</summary>
    public int EvictionSamples { get; init; } = 5;

    /// <summary>How often the active expiry cycle runs.</summary>
    public TimeSpan ActiveExpiryInterval { get; init; } = TimeSpan.FromMilliseconds(100);

    /// <summary>The most time one active expiry cycle may take.</summary>
    public TimeSpan ActiveExpiryBudget { get; init; } = TimeSpan.FromMilliseconds(25);

    /// <summary>Entries sampled per grain per step of the active cycle.</summary>
    public int ActiveExpirySamples { get; init; } = 20;

    /// <summary>How often every grain is swept for expired entries.</summary>
    public TimeSpan FullSweepInterval { get; init; } = TimeSpan.FromMinutes(5);
}
