using Orleans;
using Orleans.Concurrency;

namespace Cubby.Sharding;

/// <summary>
/// The grain that holds one shard of the key space (its key is the shard number, <see cref="ShardMap.SlotOf(ReadOnlySpan{byte})"/>).
/// Each call is one turn of the grain: nothing else runs on the shard meanwhile, so a read and its sliding renewal, a
/// conditional write or an increment are atomic. Keys and values travel as <see cref="ImmutableAttribute">immutable</see>
/// byte arrays: Orleans never copies them, so callers must not change an array after passing it. The typed calls refuse,
/// with an <see cref="ArgumentException"/> naming the setting, a key that is empty, longer than the silo's
/// <c>Cubby:MaxKeyBytes</c> or of another shard (a caller whose slot count differs from the silo's <c>Cubby:SlotCount</c>),
/// and a value longer than <c>Cubby:MaxValueBytes</c>.
/// </summary>
public interface IShardGrain : IGrainWithIntegerKey
{
    /// <summary>Reads an entry and, when <paramref name="slide"/> is set, renews its sliding expiry in the same turn.</summary>
    /// <param name="key">The key.</param>
    /// <param name="slide">Whether the read renews a sliding expiry.</param>
    /// <returns>The entry, or null when it is absent or expired.</returns>
    ValueTask<ShardEntry?> Get([Immutable] byte[] key, bool slide);

    /// <summary>Reads several entries of this shard in one turn (see <see cref="Get"/>).</summary>
    /// <param name="keys">The keys, each of this shard.</param>
    /// <param name="slide">Whether the reads renew sliding expiries.</param>
    /// <returns>One entry or null per key, in order.</returns>
    ValueTask<ShardEntry?[]> GetMany([Immutable] byte[][] keys, bool slide);

    /// <summary>Writes an entry if <paramref name="condition"/> holds, evicting others first when the memory budget is full.</summary>
    /// <param name="key">The key.</param>
    /// <param name="value">The value.</param>
    /// <param name="expiry">When the entry expires.</param>
    /// <param name="flags">Flags stored with the entry.</param>
    /// <param name="condition">When the write applies.</param>
    /// <returns>What the write did.</returns>
    /// <exception cref="CubbyOutOfMemoryException">The entry does not fit in the budget even after eviction.</exception>
    ValueTask<WriteOutcome> Set([Immutable] byte[] key, [Immutable] byte[] value, ShardExpiry expiry, CacheEntryFlags flags, ShardWriteCondition condition);

    /// <summary>Writes several entries of this shard in one turn, unconditionally, all with the same expiry and flags.</summary>
    /// <param name="keys">The keys, each of this shard.</param>
    /// <param name="values">One value per key.</param>
    /// <param name="expiry">When the entries expire.</param>
    /// <param name="flags">Flags stored with each entry.</param>
    /// <returns>What each write did.</returns>
    /// <exception cref="CubbyOutOfMemoryException">An entry does not fit; the ones before it are written.</exception>
    ValueTask<WriteOutcome[]> SetMany([Immutable] byte[][] keys, [Immutable] byte[][] values, ShardExpiry expiry, CacheEntryFlags flags);

    /// <summary>Renews an entry's sliding expiry without reading it.</summary>
    /// <param name="key">The key.</param>
    /// <returns>False when the entry is absent.</returns>
    ValueTask<bool> Refresh([Immutable] byte[] key);

    /// <summary>Removes entries of this shard.</summary>
    /// <param name="keys">The keys, each of this shard.</param>
    /// <returns>How many existed.</returns>
    ValueTask<int> Remove([Immutable] byte[][] keys);

    /// <summary>Copies an entry out whole: value, type, flags and expiry (RENAME and COPY between shards).</summary>
    /// <param name="key">The key.</param>
    /// <returns>The copy, or null when the entry is absent or expired.</returns>
    ValueTask<ShardEntryCopy?> Export([Immutable] byte[] key);

    /// <summary>Writes a copied entry under <paramref name="key"/>, keeping its type, flags and expiry.</summary>
    /// <param name="key">The key to write, of this shard.</param>
    /// <param name="entry">The entry, from <see cref="Export"/>.</param>
    /// <param name="replace">Whether an existing entry (of any type) is replaced.</param>
    /// <returns>False when the key exists and <paramref name="replace"/> is not set; nothing is written then.</returns>
    /// <exception cref="CubbyOutOfMemoryException">The entry does not fit in the budget even after eviction.</exception>
    ValueTask<bool> Import([Immutable] byte[] key, ShardEntryCopy entry, bool replace);

    /// <summary>Milliseconds an entry has left to live, as Redis's PTTL: -1 without expiry, -2 when absent.</summary>
    /// <param name="key">The key.</param>
    /// <returns>The time to live in milliseconds, -1 or -2.</returns>
    ValueTask<long> TimeToLive([Immutable] byte[] key);

    /// <summary>Adds <paramref name="delta"/> to an integer entry (absent counts as 0), keeping its expiry.</summary>
    /// <param name="key">The key.</param>
    /// <param name="delta">What to add.</param>
    /// <returns>The new value.</returns>
    /// <exception cref="InvalidOperationException">The value is not an integer, or the result would overflow.</exception>
    ValueTask<long> Increment([Immutable] byte[] key, long delta);

    /// <summary>The shard's live keys (SCAN, KEYS), optionally only those matching a Redis glob pattern or of one type.</summary>
    /// <param name="pattern">A glob pattern as KEYS takes it, or null for every key.</param>
    /// <param name="type">A type as Redis's TYPE names it (<c>string</c>, <c>hash</c>), or null for every type.</param>
    /// <returns>The keys, in no particular order.</returns>
    [return: Immutable]
    ValueTask<byte[][]> Keys([Immutable] byte[]? pattern, string? type = null);

    /// <summary>A live key of this shard picked at random (RANDOMKEY).</summary>
    /// <returns>The key, or null when the shard holds none.</returns>
    [return: Immutable]
    ValueTask<byte[]?> RandomKey();

    /// <summary>Entries held, and how many of them have an expiry (expired ones not yet collected included).</summary>
    /// <returns>The counts.</returns>
    ValueTask<ShardCounts> Count();

    /// <summary>Removes every entry of the shard (FLUSHALL).</summary>
    /// <returns>How many there were.</returns>
    ValueTask<int> Clear();

    /// <summary>
    /// Writes this shard's entries to its silo's persistence folder now (<c>SAVE</c>); false when the silo keeps no
    /// folder (<c>Cubby:Persistence:Directory</c> unset) or the write failed (logged there).
    /// </summary>
    Task<bool> Save();

    /// <summary>
    /// Asks the shard to move to its home silo (rendezvous hashing of the shard number over the compatible active
    /// silos) when it is elsewhere, entries and all; a silo calls it for its shards when the cluster changes. A shard
    /// that arrived by migration moments ago stays where it is for now, and the silo asks again later.
    /// </summary>
    /// <returns>True when the shard was elsewhere and is now moving.</returns>
    ValueTask<bool> MoveHome();

    /// <summary>Where the shard is active: the endpoint (<c>host:port</c>) of its silo's Orleans silo port.</summary>
    /// <returns>The silo's endpoint when it answered; the shard may move later.</returns>
    ValueTask<string> Locate();

    /// <summary>
    /// Holds this shard for a transaction, then the next of <paramref name="slots"/> (ascending, so two transactions
    /// never wait for each other), and once the last is held calls <paramref name="callback"/>; returns when it has
    /// run the transaction. Meanwhile only calls of the caller's call chain (<c>RequestContext.ReentrancyId</c>, which the
    /// caller must set) reach the held shards: Orleans queues every other call behind this one, and the silo's own RESP
    /// front door goes through the grain too. When the transaction is rolled back, the shard puts back the entries of
    /// its keys in <paramref name="keys"/> that changed while it was held, before it lets go. The last shard decides the
    /// outcome: what <see cref="ITransactionCallback.Held"/> answered, or a rollback when the answer did not arrive. A
    /// shard whose call to the next one fails asks the last shard (<see cref="Outcome"/>).
    /// </summary>
    /// <param name="slots">The transaction's shards, ascending and distinct.</param>
    /// <param name="keys">
    /// For each of <paramref name="slots"/>, the keys the transaction may change there; null when it cannot be rolled
    /// back (a command over the whole keyspace), and it is then kept whatever happens.
    /// </param>
    /// <param name="depth">This shard's position in <paramref name="slots"/>.</param>
    /// <param name="callback">The silo running the transaction.</param>
    /// <returns>Whether the transaction was kept, and whether the chain broke at or after this shard.</returns>
    ValueTask<HoldEnd> Hold([Immutable] int[] slots, [Immutable] byte[][][]? keys, int depth, ITransactionCallback callback);

    /// <summary>
    /// Whether the transaction of call chain <paramref name="chain"/> (<c>RequestContext.ReentrancyId</c>), which held
    /// this shard lately, was kept, as this shard decided (the last of its shards) or learned it, once that is on its
    /// replicas: asked by another shard of that transaction, or the silo running it, that lost the chain. It runs
    /// while the shard is held.
    /// </summary>
    /// <param name="chain">The transaction's call chain id.</param>
    /// <returns>True when kept, false when rolled back, null when this shard has not learned it (or forgot it).</returns>
    [AlwaysInterleave]
    ValueTask<bool?> Outcome(Guid chain);

    /// <summary>
    /// Asked of the last shard of the transaction of call chain <paramref name="chain"/>, which decides its outcome, by
    /// another of its shards or the silo running it, that lost the chain: the decision, once it is on the replicas.
    /// When this shard has not held the transaction (the chain broke before it, or its hold is yet to arrive), it
    /// decides now to roll it back, and refuses the hold if it comes. It runs while the shard is held.
    /// </summary>
    /// <param name="chain">The transaction's call chain id.</param>
    /// <returns>True when kept, false when rolled back, null while this shard holds the transaction undecided.</returns>
    [AlwaysInterleave]
    ValueTask<bool?> Decision(Guid chain);

    /// <summary>Starts watching each of <paramref name="keys"/> for a connection (WATCH).</summary>
    /// <returns>What EXEC later gives <see cref="Unchanged"/>, key by key.</returns>
    ValueTask<KeyWatch[]> Watch([Immutable] byte[][] keys);

    /// <summary>Whether every one of <paramref name="keys"/> is as it was when watched: not written, deleted, expired or evicted since.</summary>
    ValueTask<bool> Unchanged([Immutable] byte[][] keys, [Immutable] KeyWatch[] watches);

    /// <summary>Stops watching <paramref name="keys"/> for a connection (UNWATCH, EXEC, DISCARD, or it closed).</summary>
    [OneWay]
    Task Unwatch([Immutable] byte[][] keys);

    /// <summary>
    /// One factory run per missing key across the cluster. Reads <paramref name="key"/>; when it is absent (or
    /// <paramref name="ignorePresent"/>: its entry is stale to the caller), grants <paramref name="owner"/> the lease to
    /// fill it for <paramref name="leaseMilliseconds"/>, unless another owner holds an unexpired one: then answers
    /// <see cref="FillStatus.Busy"/>, and the caller waits with <see cref="AwaitFill"/> and asks again. The owner
    /// asking again renews its lease.
    /// </summary>
    /// <param name="key">The key.</param>
    /// <param name="owner">Who would fill it: one id per run of a factory.</param>
    /// <param name="leaseMilliseconds">How long the lease lasts unless renewed or given up.</param>
    /// <param name="ignorePresent">Whether an entry present now counts as missing (the caller found it stale).</param>
    /// <returns>The entry, the lease, or busy.</returns>
    ValueTask<FillAnswer> Fill([Immutable] byte[] key, Guid owner, int leaseMilliseconds, bool ignorePresent);

    /// <summary>
    /// Waits, at most <paramref name="waitMilliseconds"/>, for the lease on <paramref name="key"/> to end: the key
    /// changed (the filler's write), the filler gave up, or the shard is leaving. It reads nothing and does not hold the
    /// shard: other calls run meanwhile. A lease that runs out ends no wait; the caller asks <see cref="Fill"/> again.
    /// </summary>
    /// <param name="key">The key.</param>
    /// <param name="waitMilliseconds">The longest wait (keep it under the caller's timeout).</param>
    /// <returns>True when the lease ended (or there was none), false when the wait ran out.</returns>
    [AlwaysInterleave]
    ValueTask<bool> AwaitFill([Immutable] byte[] key, int waitMilliseconds);

    /// <summary>Gives up the lease <see cref="Fill"/> granted <paramref name="owner"/>: its waiters wake, and one of them fills.</summary>
    /// <param name="key">The key.</param>
    /// <param name="owner">The lease's owner.</param>
    /// <returns>When the lease is given up.</returns>
    ValueTask GiveUpFill([Immutable] byte[] key, Guid owner);
}
