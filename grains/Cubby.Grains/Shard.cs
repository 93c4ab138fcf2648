using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Grains;

/// <summary>
/// One shard's entries, held by its <see cref="ShardGrain"/> activation. Its entry operations (reads, writes, hash
/// edits, watches) run in a turn their caller holds: a grain call takes it (<see cref="TakeTurn"/>) around the call, and
/// the RESP front door of the silo that holds the activation takes it directly on the connection's thread
/// (<see cref="TryEnterTurn"/>), which a grain call would only wrap in a queue hop; a command's handler then runs in
/// that one turn, so a read and its slide, a compare-and-set or an increment can never interleave with another call.
/// Whole-shard upkeep (counts, sweeps, eviction, migration) takes the turn itself. Once the grain deactivates the
/// shard is closed and direct callers go through Orleans.
/// </summary>
internal sealed partial class Shard : IDisposable
{
    private readonly Lock _turn = new();
    private readonly EntryStore _store;
    private readonly MemoryBudget _budget;
    private readonly IMemoryReclaimer _reclaimer;
    private readonly TimeProvider _time;
    private readonly int _maxValueBytes;
    private long _expired;
    private long _evicted;
    private long _calls;
    private bool _disposed;
    private bool _closed;

    public Shard(int slot, EntryStore store, MemoryBudget budget, IMemoryReclaimer reclaimer, TimeProvider time, int maxValueBytes)
    {
        Slot = slot;
        _store = store;
        _budget = budget;
        _reclaimer = reclaimer;
        _time = time;
        _maxValueBytes = maxValueBytes;
    }

    public int Slot { get; }

    /// <summary>Entries held, including expired ones not yet collected.</summary>
    public int Count
    {
        get
        {
            lock (_turn)
            {
                return _store.Count;
            }
        }
    }

    public long UsedBytes
    {
        get
        {
            lock (_turn)
            {
                return _store.UsedBytes;
            }
        }
    }

    /// <summary>
    /// Whether any entry has an expiry, read without the turn: active expiry skips a shard without any, and a stale
    /// answer only delays a sample by one cycle.
    /// </summary>
    public bool HasExpiringEntries => _store.ExpiringCount > 0;

    /// <summary>Entries removed because they expired.</summary>
    public long ExpiredCount => Volatile.Read(ref _expired);

    /// <summary>Entries removed to stay within the memory budget.</summary>
    public long EvictedCount => Volatile.Read(ref _evicted);

    /// <summary>
    /// Whether this silo may serve its shards now (it confirmed lately that it is still a member of the cluster): a
    /// caller's turn is refused with <see cref="Sharding.SiloFencedException"/> when it may not. Null without Orleans.
    /// </summary>
    public Fencing.ServingFence? Fence { get; init; }

    /// <summary>
    /// Turns callers have taken on this shard: commands through the RESP door, commands relayed from other silos, and
    /// the client's calls, however they reached it. Counted in the turn, so without an atomic operation; read without it.
    /// </summary>
    public long CallCount => Volatile.Read(ref _calls);

    /// <summary>
    /// Holds this grain's turn across several calls, for commands that must be atomic over several slots (MSETNX).
    /// Turns are re-entrant on the holding thread. Callers take several grains in ascending slot order.
    /// </summary>
    public void EnterTurn()
    {
        Fence?.ThrowIfNotServing(Slot);
        _turn.Enter();
    }

    /// <summary>
    /// Releases a turn taken with <see cref="EnterTurn"/> or <see cref="TryEnterTurn"/>, sealing what it changed into
    /// the replicas' next batch first.
    /// </summary>
    public void ExitTurn()
    {
        _calls++;
        try
        {
            SealChanges();
        }
        finally
        {
            _turn.Exit();
        }
    }

    /// <summary>Holds this shard's turn until the scope is disposed: a grain call's entry operations run in it.</summary>
    public Turn TakeTurn()
    {
        Fence?.ThrowIfNotServing(Slot);
        _turn.Enter();
        return new Turn(this);
    }

    /// <summary>
    /// Holds this shard's turn for the shard's own settling of a transaction it held (keeping or putting back its keys
    /// as decided), whether or not the silo may serve now. The fence keeps callers out; it must not stop a shard from
    /// finishing what was decided, or a blip of it would leave the decision made and never told.
    /// </summary>
    public Turn TakeSettlingTurn()
    {
        _turn.Enter();
        return new Turn(this);
    }

    /// <summary>A turn taken with <see cref="TakeTurn"/>; disposing it is <see cref="ExitTurn"/>.</summary>
    public readonly ref struct Turn(Shard shard)
    {
        public void Dispose() => shard.ExitTurn();
    }

    /// <summary>
    /// Takes this shard's turn for a caller outside its grain, unless the shard is closed: its grain is deactivating
    /// or moving, and calls must go through Orleans to wherever it lands (as they must, to be refused, while the silo
    /// is fenced). Waits for a turn in progress.
    /// </summary>
    public bool TryEnterTurn()
    {
        if (Fence is { IsServing: false })
        {
            return false;
        }

        _turn.Enter();
        if (!_closed && !_disposed && IsFreeForCaller())
        {
            return true;
        }

        _turn.Exit();
        return false;
    }

    /// <summary>
    /// <see cref="TryEnterTurn"/> for a command: also false for a transaction's command that its transaction no longer
    /// holds this shard for, which must go through the grain to be refused there.
    /// </summary>
    public bool TryEnterCommandTurn()
    {
        if (!TryEnterTurn())
        {
            return false;
        }

        if (!IsHoldEndedForCaller())
        {
            return true;
        }

        _turn.Exit();
        return false;
    }

    /// <summary>Whether the shard was disposed: its entries are gone and its blocks returned.</summary>
    public bool IsDisposed => Volatile.Read(ref _disposed);

    /// <summary>Whether direct callers may still use this shard.</summary>
    public bool IsOpen => !Volatile.Read(ref _closed) && !_disposed;

    /// <summary>
    /// Stops direct callers (<see cref="TryEnterTurn"/> answers false from now on), after any direct call in progress
    /// has finished: whatever such a call wrote is in the store when the grain captures it for migration.
    /// </summary>
    public void Close()
    {
        lock (_turn)
        {
            Volatile.Write(ref _closed, true);
            WakeFillers();
        }
    }

    /// <summary>Lets direct callers in again: a shard that left this silo, kept as a copy, is its primary again.</summary>
    public void Reopen()
    {
        lock (_turn)
        {
            Volatile.Write(ref _closed, false);
        }
    }

    /// <summary>
    /// Releases the grain's bytes from the shared budget and frees its store. A caller still holding the grain (it was
    /// detached or replaced meanwhile) gets <see cref="ObjectDisposedException"/> from any call on a key, never a
    /// write into a store that is gone.
    /// </summary>
    public void Dispose()
    {
        lock (_turn)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;

            // Who read what stays here: readers must drop what they cached from this shard.
            ForgetReaders();
            _budget.Release(_store.UsedBytes);
            _store.Dispose();
        }
    }

    private long Now() => _time.GetUtcNow().ToUnixTimeMilliseconds();

    /// <summary>Entry operations run in their caller's turn; one without it is a bug in the caller, not a race to allow.</summary>
    private void RequireTurn()
    {
        if (!_turn.IsHeldByCurrentThread)
        {
            ThrowWithoutTurn();
        }
    }

    [System.Diagnostics.CodeAnalysis.DoesNotReturn]
    private void ThrowWithoutTurn() =>
        throw new InvalidOperationException($"Shard {Slot}: an entry operation ran without the shard's turn (TakeTurn, TryEnterTurn or EnterTurn).");

    /// <summary>The index of a live entry; an expired one is removed on the way (lazy expiry).</summary>
    private int FindLive(ReadOnlySpan<byte> key, long now)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        var index = _store.IndexOf(key);
        if (index >= 0 && _store.MetadataAt(index).IsExpiredAt(now))
        {
            RemoveEntry(index);
            _expired++;
            return -1;
        }

        return index;
    }

    /// <summary>Like <see cref="FindLive"/>, for a command on strings: a live entry of another kind is a WRONGTYPE error.</summary>
    private int FindString(ReadOnlySpan<byte> key, long now)
    {
        var index = FindLive(key, now);
        return index >= 0 && _store.MetadataAt(index).Kind != EntryKind.String ? throw new WrongTypeException() : index;
    }

    /// <summary>What replacing the value at <paramref name="index"/> with one of <paramref name="newLength"/> bytes adds to the budget.</summary>
    private long GrowthOf(int index, int newLength)
    {
        var oldLength = _store.ValueAt(index).Length;
        if (oldLength == newLength)
        {
            return 0;
        }

        var keyLength = _store.KeyAt(index).Length;
        return _store.SizeOf(keyLength, newLength) - _store.SizeOf(keyLength, oldLength);
    }

    /// <summary>
    /// Charges a write's growth to the budget. When it does not fit, entries are evicted (from any shard, this one
    /// included: it may hold the only evictable ones) and the answer is <see cref="ChargeOutcome.Reclaimed"/>, nothing
    /// charged: the caller looks its entry up again, since eviction may have removed or moved it, and charges anew. A
    /// concurrent writer may take the room first; then the caller evicts again. A write that grows also empties sparse
    /// slab pages first when free slots have passed their slack, moving the entries that live in them (this shard's
    /// too), with the same answer when that moved or removed anything.
    /// </summary>
    private ChargeOutcome Charge(long bytes) =>
        bytes > 0 && _reclaimer.EmptySparsePages() ? ChargeOutcome.Reclaimed
        : _budget.TryCharge(bytes) ? ChargeOutcome.Charged
        : _reclaimer.MakeRoom(bytes) ? ChargeOutcome.Reclaimed
        : ChargeOutcome.OutOfMemory;

    private void RemoveEntry(int index)
    {
        var key = _store.KeyAt(index);
        Changed(key);
        var bytes = _store.SizeOf(key.Length, _store.ValueAt(index).Length);
        _store.RemoveAt(index);
        _budget.Release(bytes);
    }
}
