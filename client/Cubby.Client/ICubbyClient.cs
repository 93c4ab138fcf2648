namespace Cubby.Client;

/// <summary>
/// A Cubby cluster as a cache: bytes and typed objects, with absolute, relative and sliding expiry. Each call is one call
/// to the key's shard grain (one per shard for the batch forms), so a read and its sliding renewal, or a write and its
/// expiry, happen in one turn of the shard. Keys are non-empty strings of at most
/// <see cref="CubbyClientOptions.MaxKeyBytes"/> UTF-8 bytes.
/// </summary>
/// <remarks>
/// While a silo leaves, fails or cannot be reached, a call is tried again (Orleans moves or re-places the shard) until
/// <see cref="CubbyClientOptions.OperationTimeout"/> has passed; then it fails with a <see cref="TimeoutException"/>
/// when the last try got no answer, or a <see cref="CubbyConnectionException"/> when no silo could take it. A call
/// tried again may have been applied the first time: every method here gives the same cache either way, though a
/// second write may report <see cref="WriteOutcome.Updated"/> or <see cref="RemoveOutcome.NotFound"/>. Cancelling
/// stops the caller's wait; a call already sent may still be applied. A key or value the silo refuses gives an
/// <see cref="ArgumentException"/> naming the setting; a write that does not fit in the silo's memory budget gives a
/// <see cref="Sharding.CubbyOutOfMemoryException"/>. The same holds for the <c>IDistributedCache</c> methods.
/// </remarks>
public interface ICubbyClient
{
    /// <summary>Stores a value (compressed when <see cref="CacheEntryOptions.Flags"/> asks).</summary>
    /// <param name="key">The key.</param>
    /// <param name="value">The value; at most <see cref="CubbyClientOptions.MaxValueBytes"/> bytes.</param>
    /// <param name="options">Expiry and flags; <see cref="CacheEntryOptions.Never"/> when null.</param>
    /// <param name="cancellationToken">Cancels the wait (the command may still be applied once sent).</param>
    /// <returns><see cref="WriteOutcome.Created"/> or <see cref="WriteOutcome.Updated"/>.</returns>
    ValueTask<WriteOutcome> PutAsync(string key, ReadOnlyMemory<byte> value, CacheEntryOptions? options = null, CancellationToken cancellationToken = default);

    /// <summary>Reads a value, renewing its sliding expiry in the same step.</summary>
    /// <param name="key">The key.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>The value, or null when there is no such entry.</returns>
    ValueTask<byte[]?> GetAsync(string key, CancellationToken cancellationToken = default);

    /// <summary>Reads an entry with its flags and time to live, renewing its sliding expiry in the same step.</summary>
    /// <param name="key">The key.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>The entry, or null when there is none.</returns>
    ValueTask<CacheEntry?> GetEntryAsync(string key, CancellationToken cancellationToken = default);

    /// <summary>Whether an entry exists (without renewing it).</summary>
    /// <param name="key">The key.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>True when it exists.</returns>
    ValueTask<bool> ExistsAsync(string key, CancellationToken cancellationToken = default);

    /// <summary>Renews an entry's sliding expiry without reading it.</summary>
    /// <param name="key">The key.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>True when the entry exists.</returns>
    ValueTask<bool> RefreshAsync(string key, CancellationToken cancellationToken = default);

    /// <summary>Removes an entry.</summary>
    /// <param name="key">The key.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>Whether it was there.</returns>
    ValueTask<RemoveOutcome> EvictAsync(string key, CancellationToken cancellationToken = default);

    /// <summary>How long an entry has left to live.</summary>
    /// <param name="key">The key.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>Null when there is no such entry; <see cref="Timeout.InfiniteTimeSpan"/> when it never expires.</returns>
    ValueTask<TimeSpan?> GetTimeToLiveAsync(string key, CancellationToken cancellationToken = default);

    /// <summary>
    /// Asks the key's shard which slot it is and on which silo it is active. This is for looking: Orleans routes every
    /// call to wherever the shard is. Nothing about the key is read or changed.
    /// </summary>
    /// <param name="key">The key.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>The key's slot and the Orleans endpoint (<c>host:port</c>) of the silo where its shard is active.</returns>
    /// <exception cref="CubbyConnectionException">No silo could take the call.</exception>
    ValueTask<KeyOwner> GetOwnerAsync(string key, CancellationToken cancellationToken = default);

    /// <summary>Serializes and stores an object.</summary>
    /// <typeparam name="T">The object's type.</typeparam>
    /// <param name="key">The key.</param>
    /// <param name="value">The object.</param>
    /// <param name="options">Expiry and flags; <see cref="CacheEntryOptions.Never"/> when null.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns><see cref="WriteOutcome.Created"/> or <see cref="WriteOutcome.Updated"/>.</returns>
    ValueTask<WriteOutcome> PutObjectAsync<T>(string key, T value, CacheEntryOptions? options = null, CancellationToken cancellationToken = default);

    /// <summary>Reads and deserializes an object, renewing its sliding expiry.</summary>
    /// <typeparam name="T">The object's type.</typeparam>
    /// <param name="key">The key.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>The object, or <c>default</c> when there is no such entry.</returns>
    ValueTask<T?> GetObjectAsync<T>(string key, CancellationToken cancellationToken = default);

    /// <summary>
    /// Returns the cached object, or runs <paramref name="factory"/>, stores its result and returns it. One factory run
    /// per missing key across the cluster: the key's shard lets one caller, in any process, run it, and every other
    /// caller waits for its write (callers in one process share one wait). If that factory throws, its callers get the
    /// exception and a waiter runs its own; if its process stops, a waiter runs its own once the filler's lease runs
    /// out (<see cref="CubbyClientOptions.FillLease"/>).
    /// </summary>
    /// <typeparam name="T">The object's type.</typeparam>
    /// <param name="key">The key.</param>
    /// <param name="factory">Creates the object on a miss.</param>
    /// <param name="options">Expiry and flags for a created entry; <see cref="CacheEntryOptions.Never"/> when null.</param>
    /// <param name="cancellationToken">Cancels this caller's wait.</param>
    /// <returns>The cached or created object.</returns>
    ValueTask<T> GetOrCreateAsync<T>(string key, Func<CancellationToken, ValueTask<T>> factory, CacheEntryOptions? options = null, CancellationToken cancellationToken = default);

    /// <summary>Reads several entries, renewing their sliding expiries: one call per shard the keys fall in, all at once.</summary>
    /// <param name="keys">The keys; a key may appear more than once.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>One value or null per key, in the order of <paramref name="keys"/>.</returns>
    ValueTask<byte[]?[]> GetManyAsync(IReadOnlyList<string> keys, CancellationToken cancellationToken = default);

    /// <summary>Stores several values with the same expiry and flags: one call per shard the keys fall in, all at once.</summary>
    /// <param name="entries">The keys and values; each value at most <see cref="CubbyClientOptions.MaxValueBytes"/> bytes.</param>
    /// <param name="options">Expiry and flags for every entry; <see cref="CacheEntryOptions.Never"/> when null.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>What each write did, in the order of <paramref name="entries"/>.</returns>
    /// <remarks>Each shard's writes are applied together; writes to different shards are not one transaction.</remarks>
    ValueTask<WriteOutcome[]> PutManyAsync(IReadOnlyList<KeyValuePair<string, ReadOnlyMemory<byte>>> entries, CacheEntryOptions? options = null, CancellationToken cancellationToken = default);

    /// <summary>Removes several entries: one call per shard the keys fall in, all at once.</summary>
    /// <param name="keys">The keys.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>How many of the keys existed.</returns>
    ValueTask<int> EvictManyAsync(IReadOnlyList<string> keys, CancellationToken cancellationToken = default);

    /// <summary>
    /// Removes every entry written with <paramref name="tag"/> (<see cref="CacheEntryOptions.Tags"/>), through this
    /// client or Cubby's HybridCache, whichever silos they live on: one write, whatever the number of entries.
    /// </summary>
    /// <param name="tag">The tag; non-empty, not <c>"*"</c>.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>
    /// Done once every entry carrying the tag is a miss for every client, near caches included; an entry written with the
    /// tag afterwards is not affected. The entries stay stored until they expire or are written again (an
    /// <see cref="ExistsAsync"/> still sees them).
    /// </returns>
    ValueTask RemoveByTagAsync(string tag, CancellationToken cancellationToken = default);

    /// <summary>Removes every entry written with any of <paramref name="tags"/>, in one batch (see <see cref="RemoveByTagAsync(string, CancellationToken)"/>).</summary>
    /// <param name="tags">The tags; each non-empty, not <c>"*"</c>.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>Done once every entry carrying one of the tags is a miss for every client.</returns>
    ValueTask RemoveByTagAsync(IEnumerable<string> tags, CancellationToken cancellationToken = default);
}
