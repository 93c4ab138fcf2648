using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Grains;

/// <summary>
/// The shards this silo holds, one per active <see cref="ShardGrain"/>, and the memory budget they share. The RESP
/// front door finds a shard here to run a command on it directly; a shard that is absent lives on another silo, or
/// is moving.
/// </summary>
internal sealed class ShardCatalog : IDisposable
{
    private readonly Shard?[] _grains;
    private readonly GrainSettings _settings;
    private readonly TimeProvider _time;
    private readonly EntryStores _stores;

    // What grains that left the catalog had expired and evicted, so the totals never go backwards after a shard migrates.
    private long _retiredExpired;
    private long _retiredEvicted;
    private long _migratedOut;
    private long _migratedIn;

    public ShardCatalog(GrainSettings settings, TimeProvider time, EntryStores? stores = null)
    {
        _settings = settings;
        _time = time;
        _stores = stores ?? EntryStores.Native(settings.KeptForReuseBytes, EntryStores.SlabSlackBytesFor(settings.MaxMemoryBytes));
        ShardMap = new ShardMap(settings.SlotCount);
        Budget = new MemoryBudget(settings.MaxMemoryBytes, settings.KeptForReuseBytes);
        _grains = new Shard?[settings.SlotCount];
        Sizer = _stores.Create();
        Evictor = new Evictor(this);
    }

    /// <summary>Makes room in the budget by evicting from this silo's shards.</summary>
    public Evictor Evictor { get; }

    public ShardMap ShardMap { get; }

    /// <summary>The clock entries expire by.</summary>
    public TimeProvider Time => _time;

    public MemoryBudget Budget { get; }

    public GrainSettings Settings => _settings;

    public int SlotCount => _grains.Length;

    /// <summary>An empty store used only to size entries before they are written.</summary>
    private EntryStore Sizer { get; }

    /// <summary>The slab pages the stores carve their blocks from.</summary>
    public SlabPages Slabs => _stores.Slabs;

    /// <summary>Frees the blocks the stores keep for reuse (MEMORY PURGE).</summary>
    public void ReleaseKeptBlocks() => _stores.ReleaseKeptBlocks();

    public Shard this[int slot] => Volatile.Read(ref _grains[slot]) ?? Activate(slot);

    public Shard GrainFor(ReadOnlySpan<byte> key) => this[ShardMap.SlotOf(key)];

    /// <summary>The grain of <paramref name="slot"/> if it has been activated; never activates one.</summary>
    public Shard? Find(int slot) => Volatile.Read(ref _grains[slot]);

    /// <summary>
    /// A new, empty grain for <paramref name="slot"/> on this catalog's store kind, budget and settings, not yet visible:
    /// a migrating shard's entries are installed into it and then it is <see cref="Attach"/>ed. Until then the caller
    /// owns it (and disposes it if the migration is abandoned, which releases what it was charged).
    /// </summary>
    public Shard CreateDetached(int slot)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(slot);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(slot, _grains.Length);
        return new Shard(slot, _stores.Create(), Budget, Evictor, _time, _settings.MaxValueBytes);
    }

    /// <summary>
    /// Makes <paramref name="grain"/> the grain of <paramref name="slot"/>. A grain already there (activated by an early
    /// call, or left by an abandoned migration) is replaced, not merged: the attached grain is the slot's whole state as
    /// its previous owner handed it over, so the replaced grain is disposed, its entries dropped and its bytes released.
    /// A caller still holding the replaced grain gets <see cref="ObjectDisposedException"/> from it.
    /// </summary>
    /// <exception cref="ArgumentException">The grain is of another slot, or was not created by this catalog.</exception>
    public void Attach(int slot, Shard grain)
    {
        ArgumentNullException.ThrowIfNull(grain);
        ArgumentOutOfRangeException.ThrowIfNegative(slot);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(slot, _grains.Length);
        if (grain.Slot != slot)
        {
            throw new ArgumentException($"The grain is slot {grain.Slot}'s, not slot {slot}'s.", nameof(grain));
        }

        if (!grain.Charges(Budget))
        {
            throw new ArgumentException("The grain was not created by this catalog (it charges another memory budget).", nameof(grain));
        }

        var replaced = Interlocked.Exchange(ref _grains[slot], grain);
        if (replaced is not null && !ReferenceEquals(replaced, grain))
        {
            Retire(replaced);
            replaced.Dispose();
        }
    }

    /// <summary>
    /// Removes the grain of <paramref name="slot"/> from the catalog and returns it (null if none was active). The
    /// caller disposes it once its entries are handed off, which releases its bytes. A later call for the slot through
    /// this catalog's indexer activates a new, empty grain.
    /// </summary>
    public Shard? Detach(int slot)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(slot);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(slot, _grains.Length);
        var detached = Interlocked.Exchange(ref _grains[slot], null);
        if (detached is not null)
        {
            Retire(detached);
        }

        return detached;
    }

    public long EstimateSize(int keyLength, int valueLength) => Sizer.SizeOf(keyLength, valueLength);

    /// <summary>Removes <paramref name="shard"/> from the catalog if it is still the one of <paramref name="slot"/>.</summary>
    public void Detach(int slot, Shard shard)
    {
        if (Interlocked.CompareExchange(ref _grains[slot], null, shard) == shard)
        {
            Retire(shard);
        }
    }

    /// <summary>Entries held by every active grain.</summary>
    public long Count()
    {
        long total = 0;
        foreach (var grain in _grains)
        {
            total += grain?.Count ?? 0;
        }

        return total;
    }

    /// <summary>Shards that left this silo for another with their entries.</summary>
    public long ShardsMigratedOut => Volatile.Read(ref _migratedOut);

    /// <summary>Shards that arrived here from another silo with their entries.</summary>
    public long ShardsMigratedIn => Volatile.Read(ref _migratedIn);

    public void CountMigratedOut() => Interlocked.Increment(ref _migratedOut);

    public void CountMigratedIn() => Interlocked.Increment(ref _migratedIn);

    /// <summary>Shards active here and open to direct callers.</summary>
    public int ActiveShards()
    {
        var count = 0;
        foreach (var grain in _grains)
        {
            count += grain is { IsOpen: true } ? 1 : 0;
        }

        return count;
    }

    /// <summary>Entries removed because they expired, and to stay within the budget, by every grain this catalog has had.</summary>
    public (long Expired, long Evicted) RemovalTotals()
    {
        long expired = Volatile.Read(ref _retiredExpired), evicted = Volatile.Read(ref _retiredEvicted);
        foreach (var grain in _grains)
        {
            if (grain is not null)
            {
                expired += grain.ExpiredCount;
                evicted += grain.EvictedCount;
            }
        }

        return (expired, evicted);
    }

    public void Dispose()
    {
        for (var slot = 0; slot < _grains.Length; slot++)
        {
            Interlocked.Exchange(ref _grains[slot], null)?.Dispose();
        }

        Sizer.Dispose();
    }

    private void Retire(Shard grain)
    {
        Interlocked.Add(ref _retiredExpired, grain.ExpiredCount);
        Interlocked.Add(ref _retiredEvicted, grain.EvictedCount);
    }

    private Shard Activate(int slot)
    {
        var grain = new Shard(slot, _stores.Create(), Budget, Evictor, _time, _settings.MaxValueBytes);
        var winner = Interlocked.CompareExchange(ref _grains[slot], grain, null);
        if (winner is null)
        {
            return grain;
        }

        grain.Dispose();
        return winner;
    }
}
