using Orleans;

namespace Cubby.Sharding;

/// <summary>What a <see cref="ShardOperation"/> does.</summary>
[GenerateSerializer]
public enum ShardOperationKind : byte
{
    /// <summary>Reads an entry (<see cref="IShardGrain.Get"/>).</summary>
    Get,

    /// <summary>Writes an entry (<see cref="IShardGrain.Set"/>).</summary>
    Set,

    /// <summary>Removes an entry (<see cref="IShardGrain.Remove"/> of one key).</summary>
    Remove,

    /// <summary>Renews an entry's sliding expiry without reading it (<see cref="IShardGrain.Refresh"/>).</summary>
    Refresh,

    /// <summary>Reads how long an entry has left to live, without renewing it (<see cref="IShardGrain.TimeToLive"/>).</summary>
    TimeToLive,

    /// <summary>
    /// Reads an entry as <see cref="Get"/> does and remembers that the batch's near-cache reader read it
    /// (<see cref="IShardBatchService.RunTracked"/>); one the silo cannot remember (a batch without a reader) is answered
    /// as failed, for the client to read it as a single call and keep nothing.
    /// </summary>
    TrackedGet,
}

/// <summary>
/// One single-key operation of a batch (<see cref="IShardBatchService.Run"/>), with the arguments of the shard-grain
/// call it stands for. Keys and values are immutable arrays, as in <see cref="IShardGrain"/>.
/// </summary>
/// <param name="Kind">What it does.</param>
/// <param name="Slot">The key's shard.</param>
/// <param name="Key">The key.</param>
/// <param name="Slide">For a read: whether it renews a sliding expiry.</param>
/// <param name="Value">For a write: the value.</param>
/// <param name="Expiry">For a write: when the entry expires.</param>
/// <param name="Flags">For a write: the flags stored with it.</param>
/// <param name="Condition">For a write: when it applies.</param>
[GenerateSerializer, Immutable, SuppressReferenceTracking]
public sealed record ShardOperation(
    [property: Id(0)] ShardOperationKind Kind,
    [property: Id(1)] int Slot,
    [property: Id(2)] byte[] Key,
    [property: Id(3)] bool Slide = false,
    [property: Id(4)] byte[]? Value = null,
    [property: Id(5)] ShardExpiry Expiry = default,
    [property: Id(6)] CacheEntryFlags Flags = CacheEntryFlags.None,
    [property: Id(7)] ShardWriteCondition Condition = ShardWriteCondition.Always)
{
    /// <summary>Whether it changes its key (a write, a removal, a renewal): one its caller gave up on must not run late.</summary>
    public bool Changes => Kind is ShardOperationKind.Set or ShardOperationKind.Remove or ShardOperationKind.Refresh;

    /// <summary>A read of <paramref name="key"/>.</summary>
    /// <param name="slot">The key's shard.</param>
    /// <param name="key">The key.</param>
    /// <param name="slide">Whether it renews a sliding expiry.</param>
    /// <returns>The operation.</returns>
    public static ShardOperation Get(int slot, byte[] key, bool slide) => new(ShardOperationKind.Get, slot, key, Slide: slide);

    /// <summary>A read of <paramref name="key"/> whose next change the batch's near-cache reader is told of.</summary>
    /// <param name="slot">The key's shard.</param>
    /// <param name="key">The key.</param>
    /// <param name="slide">Whether it renews a sliding expiry.</param>
    /// <returns>The operation.</returns>
    public static ShardOperation TrackedGet(int slot, byte[] key, bool slide) => new(ShardOperationKind.TrackedGet, slot, key, Slide: slide);

    /// <summary>A removal of <paramref name="key"/>.</summary>
    /// <param name="slot">The key's shard.</param>
    /// <param name="key">The key.</param>
    /// <returns>The operation.</returns>
    public static ShardOperation Remove(int slot, byte[] key) => new(ShardOperationKind.Remove, slot, key);

    /// <summary>A renewal of <paramref name="key"/>'s sliding expiry.</summary>
    /// <param name="slot">The key's shard.</param>
    /// <param name="key">The key.</param>
    /// <returns>The operation.</returns>
    public static ShardOperation Refresh(int slot, byte[] key) => new(ShardOperationKind.Refresh, slot, key);

    /// <summary>A read of how long <paramref name="key"/> has left to live.</summary>
    /// <param name="slot">The key's shard.</param>
    /// <param name="key">The key.</param>
    /// <returns>The operation.</returns>
    public static ShardOperation TimeToLive(int slot, byte[] key) => new(ShardOperationKind.TimeToLive, slot, key);

    /// <summary>A write of <paramref name="key"/>.</summary>
    /// <param name="slot">The key's shard.</param>
    /// <param name="key">The key.</param>
    /// <param name="value">The value.</param>
    /// <param name="expiry">When the entry expires.</param>
    /// <param name="flags">The flags stored with it.</param>
    /// <param name="condition">When it applies.</param>
    /// <returns>The operation.</returns>
    public static ShardOperation Set(int slot, byte[] key, byte[] value, ShardExpiry expiry, CacheEntryFlags flags, ShardWriteCondition condition) =>
        new(ShardOperationKind.Set, slot, key, Value: value, Expiry: expiry, Flags: flags, Condition: condition);
}

/// <summary>How a batch's silo answered one of its operations.</summary>
[GenerateSerializer]
public enum ShardOperationStatus : byte
{
    /// <summary>It ran; the result is in <see cref="ShardOperationResult"/>.</summary>
    Done,

    /// <summary>Its shard is not open on that silo (not active there, moving, or held by a transaction).</summary>
    NotHere,

    /// <summary>It failed; the single shard-grain call gives the caller the error.</summary>
    Failed,
}

/// <summary>The result of one <see cref="ShardOperation"/>.</summary>
/// <param name="Status">Whether it ran.</param>
/// <param name="Entry">For a read that ran: the entry, or null when absent.</param>
/// <param name="Outcome">For a write that ran: what it did.</param>
/// <param name="Found">For a removal or a renewal that ran: whether the entry was there.</param>
/// <param name="TimeToLive">For a time-to-live read that ran: milliseconds left, -1 without expiry, -2 when absent.</param>
/// <param name="WriterCopyAt">
/// For a write that ran in a batch of a near cache that holds its key and waits for changes
/// (<see cref="IShardBatchService.RunTracked"/>): the key's new entry, in <paramref name="Entry"/>, was not sent on the
/// link to that near cache, which puts it in place itself, at this position among what the link sends it.
/// </param>
[GenerateSerializer, Immutable]
public readonly record struct ShardOperationResult(
    [property: Id(0)] ShardOperationStatus Status,
    [property: Id(1)] ShardEntry? Entry = null,
    [property: Id(2)] WriteOutcome Outcome = default,
    [property: Id(3)] bool Found = false,
    [property: Id(4)] long TimeToLive = 0,
    [property: Id(5)] NearCachePosition? WriterCopyAt = null)
{
    /// <summary>The shard is not open on the silo asked.</summary>
    public static ShardOperationResult NotHere => new(ShardOperationStatus.NotHere);

    /// <summary>The operation failed.</summary>
    public static ShardOperationResult Failed => new(ShardOperationStatus.Failed);
}
