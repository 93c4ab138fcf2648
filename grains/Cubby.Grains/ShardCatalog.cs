using Cubby.Grains.Capacity;
using Cubby.Grains.Hosting;
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
    private readonly Shard?[] _shards;
    private readonly ShardOptions _options;
    private readonly TimeProvider _time;
    private readonly EntryStores _stores;

    // Every shard this catalog made that may still hold blocks, attached or not (a replica, a shard arriving or
    // leaving), by slot: the owners a slab page being emptied asks to move its blocks. Replaced whole under the gate
    // when a slot gets a shard (disposed ones are pruned then), so moving reads it without the gate.
    private readonly Shard[]?[] _holders;
    private readonly Lock _holdersGate = new();

    // What shards that left the catalog had expired and evicted, so the totals never go backwards after a shard migrates.
    private long _retiredExpired;
    private long _retiredEvicted;
    private long _migratedOut;
    private long _migratedIn;

    /// <param name="options">The shards' settings.</param>
    /// <param name="time">The clock entries expire by.</param>
    /// <param name="stores">The entry stores; by default those <see cref="ShardOptions.Store"/> names.</param>
    public ShardCatalog(ShardOptions options, TimeProvider time, EntryStores? stores = null)
    {
        _options = options;
        _time = time;
        var budget = options.EffectiveMaxMemoryBytes;
        var kept = options.EffectiveKeptForReuseBytes;
        _stores = stores ?? EntryStores.For(options.Store, kept, EntryStores.SlabSlackBytesFor(budget));
        ShardMap = new ShardMap(options.SlotCount);
        Budget = new MemoryBudget(budget, kept);
        _shards = new Shard?[options.SlotCount];
        _holders = new Shard[]?[options.SlotCount];
        Sizer = _stores.Create();
        Evictor = new Evictor(this);
    }

    /// <summary>Makes room in the budget by evicting from this silo's shards.</summary>
    public Evictor Evictor { get; }

    public ShardMap ShardMap { get; }

    /// <summary>The clock entries expire by.</summary>
    public TimeProvider Time => _time;

    public MemoryBudget Budget { get; }

    public ShardOptions Options => _options;

    public int SlotCount => _shards.Length;

    /// <summary>An empty store used only to size entries before they are written.</summary>
    private EntryStore Sizer { get; }

    /// <summary>The slab pages the stores carve their blocks from.</summary>
    public SlabPages Slabs => _stores.Slabs;

    /// <summary>Frees the blocks the stores keep for reuse (MEMORY PURGE).</summary>
    public void ReleaseKeptBlocks() => _stores.ReleaseKeptBlocks();

    /// <summary>Gives the C heap's free pages back to the system (MEMORY PURGE); false where the C library cannot.</summary>
    public static bool TrimNativeHeap() => NativeHeap.TryTrim();

    /// <summary>What the C heap has handed out and what it holds (INFO memory); false where the C library cannot tell.</summary>
    public static bool TryReadNativeHeap(out long allocated, out long retained) => NativeHeap.TryReadUsage(out allocated, out retained);

    /// <summary>
    /// The shard of <paramref name="slot"/>, created empty here if none is active: for a catalog without Orleans around
    /// it (benchmarks, tests of the store); on a silo only the shard's shard creates it.
    /// </summary>
    public Shard GetOrCreate(int slot) => Volatile.Read(ref _shards[slot]) ?? Create(slot);

    /// <summary>The shard of <paramref name="key"/> (see <see cref="GetOrCreate(int)"/>).</summary>
    public Shard GetOrCreate(ReadOnlySpan<byte> key) => GetOrCreate(ShardMap.SlotOf(key));

    /// <summary>Which silos' tracking connections read which keys of the shards here; null without Orleans (benchmarks, tests).</summary>
    public Tracking.ReadTracking? Tracking { get; init; }

    /// <summary>Whether this silo may serve its shards now; null without Orleans around the catalog (always may).</summary>
    public Fencing.ServingFence? Fence { get; init; }

    /// <summary>The shard of <paramref name="slot"/> if one is active here; never creates one.</summary>
    public Shard? Find(int slot) => Volatile.Read(ref _shards[slot]);

    /// <summary>
    /// A new, empty shard for <paramref name="slot"/> on this catalog's store kind, budget and settings, not yet visible:
    /// a migrating shard's entries are installed into it and then it is <see cref="Attach"/>ed. Until then the caller
    /// owns it (and disposes it if the migration is abandoned, which releases what it was charged).
    /// </summary>
    public Shard CreateDetached(int slot)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(slot);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(slot, _shards.Length);
        return NewShard(slot);
    }

    /// <summary>
    /// Has whichever shard of the slot <paramref name="key"/> belongs to holds <paramref name="block"/>, a block of a slab
    /// page being emptied, move its entry out (<see cref="Shard.TryMoveBlock"/>).
    /// </summary>
    public BlockMove MoveBlock(ReadOnlySpan<byte> key, nint block)
    {
        var answer = BlockMove.NotHere;
        foreach (var shard in Volatile.Read(ref _holders[ShardMap.SlotOf(key)]) ?? [])
        {
            var moved = shard.TryMoveBlock(key, block);
            if (moved is BlockMove.Moved or BlockMove.Removed)
            {
                return moved;
            }

            answer = moved == BlockMove.Busy ? moved : answer;
        }

        return answer;
    }

    /// <summary>
    /// Makes <paramref name="shard"/> the shard of <paramref name="slot"/>. A shard already there (created by an early
    /// call, or left by an abandoned migration) is replaced, not merged: the attached shard is the slot's whole state as
    /// its previous owner handed it over, so the replaced shard is disposed, its entries dropped and its bytes released.
    /// A caller still holding the replaced shard gets <see cref="ObjectDisposedException"/> from it.
    /// </summary>
    /// <exception cref="ArgumentException">The shard is of another slot, or was not created by this catalog.</exception>
    public void Attach(int slot, Shard shard)
    {
        ArgumentNullException.ThrowIfNull(shard);
        ArgumentOutOfRangeException.ThrowIfNegative(slot);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(slot, _shards.Length);
        if (shard.Slot != slot)
        {
            throw new ArgumentException($"The shard is slot {shard.Slot}'s, not slot {slot}'s.", nameof(shard));
        }

        if (!shard.Charges(Budget))
        {
            throw new ArgumentException("The shard was not created by this catalog (it charges another memory budget).", nameof(shard));
        }

        var replaced = Interlocked.Exchange(ref _shards[slot], shard);
        if (replaced is not null && !ReferenceEquals(replaced, shard))
        {
            Retire(replaced);
            replaced.Dispose();
        }
    }

    /// <summary>
    /// Removes the shard of <paramref name="slot"/> from the catalog and returns it (null if none was active). The
    /// caller disposes it once its entries are handed off, which releases its bytes. A later call for the slot through
    /// <see cref="GetOrCreate(int)"/> creates a new, empty shard.
    /// </summary>
    public Shard? Detach(int slot)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(slot);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(slot, _shards.Length);
        var detached = Interlocked.Exchange(ref _shards[slot], null);
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
        if (Interlocked.CompareExchange(ref _shards[slot], null, shard) == shard)
        {
            Retire(shard);
        }
    }

    /// <summary>Entries held by every active shard.</summary>
    public long Count()
    {
        long total = 0;
        foreach (var shard in _shards)
        {
            total += shard?.Count ?? 0;
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
        foreach (var shard in _shards)
        {
            count += shard is { IsOpen: true } ? 1 : 0;
        }

        return count;
    }

    /// <summary>The numbers of the shards active here and open to direct callers.</summary>
    public int[] OpenSlots()
    {
        var slots = new List<int>();
        for (var slot = 0; slot < _shards.Length; slot++)
        {
            if (_shards[slot] is { IsOpen: true })
            {
                slots.Add(slot);
            }
        }

        return [.. slots];
    }

    /// <summary>Entries removed because they expired, and to stay within the budget, by every shard this catalog has had.</summary>
    public (long Expired, long Evicted) RemovalTotals()
    {
        long expired = Volatile.Read(ref _retiredExpired), evicted = Volatile.Read(ref _retiredEvicted);
        foreach (var shard in _shards)
        {
            if (shard is not null)
            {
                expired += shard.ExpiredCount;
                evicted += shard.EvictedCount;
            }
        }

        return (expired, evicted);
    }

    public void Dispose()
    {
        for (var slot = 0; slot < _shards.Length; slot++)
        {
            Interlocked.Exchange(ref _shards[slot], null)?.Dispose();
        }

        Sizer.Dispose();
    }

    private Shard NewShard(int slot)
    {
        var shard = new Shard(slot, _stores.Create(), Budget, Evictor, _time, _options.MaxValueBytes) { Tracking = Tracking, Fence = Fence };
        lock (_holdersGate)
        {
            Volatile.Write(ref _holders[slot], [.. (_holders[slot] ?? []).Where(static holder => !holder.IsDisposed), shard]);
        }

        return shard;
    }

    private void Retire(Shard shard)
    {
        Interlocked.Add(ref _retiredExpired, shard.ExpiredCount);
        Interlocked.Add(ref _retiredEvicted, shard.EvictedCount);
    }

    private Shard Create(int slot)
    {
        var shard = NewShard(slot);
        var winner = Interlocked.CompareExchange(ref _shards[slot], shard, null);
        if (winner is null)
        {
            return shard;
        }

        shard.Dispose();
        return winner;
    }
}
