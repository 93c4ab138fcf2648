using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Grains;

/// <summary>
/// The grains a silo hosts, one per slot, activated on first use. The catalog owns the memory budget they share.
/// </summary>
internal sealed class ShardGrainCatalog : IDisposable
{
    private readonly ShardGrain?[] _grains;
    private readonly GrainSettings _settings;
    private readonly TimeProvider _time;
    private readonly Func<IEntryStore> _createStore;

    // What grains that left the catalog had expired and evicted, so the totals never go backwards after a handoff.
    private long _retiredExpired;
    private long _retiredEvicted;

    public ShardGrainCatalog(GrainSettings settings, TimeProvider time, Func<IEntryStore>? createStore = null)
    {
        _settings = settings;
        _time = time;
        _createStore = createStore ?? (static () => new ManagedEntryStore());
        ShardMap = new ShardMap(settings.SlotCount);
        Budget = new MemoryBudget(settings.MaxMemoryBytes);
        _grains = new ShardGrain?[settings.SlotCount];
        Sizer = _createStore();
    }

    public ShardMap ShardMap { get; }

    public MemoryBudget Budget { get; }

    public GrainSettings Settings => _settings;

    public int SlotCount => _grains.Length;

    /// <summary>An empty store used only to size entries before they are written.</summary>
    private IEntryStore Sizer { get; }

    public ShardGrain this[int slot] => Volatile.Read(ref _grains[slot]) ?? Activate(slot);

    public ShardGrain GrainFor(ReadOnlySpan<byte> key) => this[ShardMap.SlotOf(key)];

    /// <summary>The grain of <paramref name="slot"/> if it has been activated; never activates one.</summary>
    public ShardGrain? Find(int slot) => Volatile.Read(ref _grains[slot]);

    /// <summary>
    /// A new, empty grain for <paramref name="slot"/> on this catalog's store kind, budget and settings, not yet visible:
    /// a handoff installs the slot's entries into it and then <see cref="Attach"/>es it. Until then the caller owns it
    /// (and disposes it if the handoff is abandoned, which releases what it was charged).
    /// </summary>
    public ShardGrain CreateDetached(int slot)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(slot);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(slot, _grains.Length);
        return new ShardGrain(slot, _createStore(), Budget, _time, _settings.MaxValueBytes);
    }

    /// <summary>
    /// Makes <paramref name="grain"/> the grain of <paramref name="slot"/>. A grain already there (activated by an early
    /// call, or left by an abandoned handoff) is replaced, not merged: the attached grain is the slot's whole state as
    /// its previous owner handed it over, so the replaced grain is disposed, its entries dropped and its bytes released.
    /// A caller still holding the replaced grain gets <see cref="ObjectDisposedException"/> from it.
    /// </summary>
    /// <exception cref="ArgumentException">The grain is of another slot, or was not created by this catalog.</exception>
    public void Attach(int slot, ShardGrain grain)
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
    public ShardGrain? Detach(int slot)
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

    private void Retire(ShardGrain grain)
    {
        Interlocked.Add(ref _retiredExpired, grain.ExpiredCount);
        Interlocked.Add(ref _retiredEvicted, grain.EvictedCount);
    }

    private ShardGrain Activate(int slot)
    {
        var grain = new ShardGrain(slot, _createStore(), Budget, _time, _settings.MaxValueBytes);
        var winner = Interlocked.CompareExchange(ref _grains[slot], grain, null);
        if (winner is null)
        {
            return grain;
        }

        grain.Dispose();
        return winner;
    }
}
