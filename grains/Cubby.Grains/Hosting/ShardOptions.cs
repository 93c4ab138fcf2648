namespace Cubby.Grains.Hosting;

/// <summary>
/// How the shards a silo hosts store, expire and evict entries: the settings of <c>siloBuilder.AddCubby()</c>, bound from
/// the <c>Cubby</c> configuration section (environment: <c>Cubby__MaxMemoryBytes</c>, ...) and checked at start. A Cubby
/// silo's own settings extend these.
/// </summary>
public class ShardOptions
{
    /// <summary>The configuration section these options bind from.</summary>
    public const string SectionName = "Cubby";

    /// <summary>The number of slots keys hash to; the same on every silo and client of a cluster.</summary>
    public int SlotCount { get; set; } = Sharding.ShardMap.DefaultSlotCount;

    /// <summary>The longest key accepted, in bytes.</summary>
    public int MaxKeyBytes { get; set; } = CubbyDefaults.MaxKeyBytes;

    /// <summary>The largest value (and any other single argument) accepted, in bytes.</summary>
    public int MaxValueBytes { get; set; } = CubbyDefaults.MaxValueBytes;

    /// <summary>The memory budget for entries, in bytes; 0 means half of the memory available to the process.</summary>
    public long MaxMemoryBytes { get; set; }

    /// <summary>
    /// The most bytes of freed entry blocks the stores keep for reuse, held back from the entries' budget; unset, 1/64 of
    /// the budget (at least 256 KiB, at most 64 MiB, never over 1/8 of it), enough for the evict-then-write churn of a
    /// full cache.
    /// </summary>
    public long? KeptForReuseBytes { get; set; }

    /// <summary>Where entry blocks live: <see cref="EntryStoreKind.Native"/> (outside the GC heap) or <see cref="EntryStoreKind.Managed"/> (the GC's pinned heap).</summary>
    public EntryStoreKind Store { get; set; } = EntryStoreKind.Native;

    /// <summary>
    /// How often a silo with the native store gives the C heap's free pages back to the system (<c>malloc_trim</c>), so
    /// RSS follows the budget under churn of many value sizes; 0 turns it off.
    /// </summary>
    public TimeSpan NativeHeapTrimInterval { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>Entries sampled per eviction when the budget is full (approximate LRU), as Redis's maxmemory-samples.</summary>
    public int EvictionSamples { get; set; } = 5;

    /// <summary>How often the active expiry cycle samples shards for expired entries.</summary>
    public TimeSpan ActiveExpiryInterval { get; set; } = TimeSpan.FromMilliseconds(100);

    /// <summary>The most time one active expiry cycle may take.</summary>
    public TimeSpan ActiveExpiryBudget { get; set; } = TimeSpan.FromMilliseconds(25);

    /// <summary>Entries sampled per shard per step of the active expiry cycle.</summary>
    public int ActiveExpirySamples { get; set; } = 20;

    /// <summary>How often every entry of every shard is checked for expiry (an Orleans reminder per shard).</summary>
    public TimeSpan FullSweepInterval { get; set; } = TimeSpan.FromMinutes(5);

    /// <summary>
    /// How many other silos keep a copy of each shard (0, 1 or 2): the silos ranked after its home. Every change is
    /// applied to them before the command or call that made it is answered, and when a silo dies its shards resume, with
    /// their entries, on the silo that kept the first copy. A silo's replicas count against its <see cref="MaxMemoryBytes"/>
    /// like its own shards but are never evicted there: the primary's evictions reach them as removals.
    /// </summary>
    public int Replicas { get; set; } = 1;

    /// <summary>
    /// The most keys this silo's shards remember for <c>CLIENT TRACKING</c> readers, as Redis's
    /// <c>tracking-table-max-keys</c>: past it, keys are forgotten and their readers told they changed. 0 for no limit.
    /// </summary>
    public long TrackingTableMaxKeys { get; set; } = 1_000_000;

    /// <summary>Keeping shards on disk across restarts (<c>Cubby:Persistence</c>); off by default.</summary>
    public PersistenceOptions Persistence { get; set; } = new();

    /// <summary>The budget in bytes: <see cref="MaxMemoryBytes"/>, or half the memory available when that is 0.</summary>
    internal long EffectiveMaxMemoryBytes =>
        MaxMemoryBytes > 0 ? MaxMemoryBytes : Math.Max(64L * 1024 * 1024, GC.GetGCMemoryInfo().TotalAvailableMemoryBytes / 2);

    /// <summary>The bytes of freed blocks kept for reuse (see <see cref="KeptForReuseBytes"/>).</summary>
    internal long EffectiveKeptForReuseBytes =>
        KeptForReuseBytes ?? Math.Min(Math.Clamp(EffectiveMaxMemoryBytes / 64, 256L * 1024, 64L * 1024 * 1024), EffectiveMaxMemoryBytes / 8);

    /// <summary>What is wrong with these settings, each message naming its setting (<c>Cubby:SlotCount must be ...</c>).</summary>
    /// <returns>The problems; empty when the settings will do.</returns>
    public IReadOnlyList<string> Problems()
    {
        var problems = new List<string>();
        ShardOptionsValidator.Validate(this, (condition, message) =>
        {
            if (!condition)
            {
                problems.Add(message);
            }
        });
        return problems;
    }
}

/// <summary>Where the entry blocks of a silo's shards live. Both lay entries out alike, in the same slab pages and table, and give an emptied page's memory back to the system.</summary>
public enum EntryStoreKind
{
    /// <summary>Native memory: nothing for the GC to track, however much is cached.</summary>
    Native,

    /// <summary>
    /// Arrays on the GC's pinned heap, one per 64 KiB slab page and one per block over 8 KiB: the GC owns and counts
    /// the cache (a heap hard limit covers it) but never moves it.
    /// </summary>
    Managed,
}
