namespace Cubby.Client;

/// <summary>
/// A Cubby cluster as a cache: bytes and typed objects, with absolute, relative and sliding expiry. Every silo serves
/// every key, so each call goes to the first of <see cref="CubbyClientOptions.Endpoints"/> whose connection is up.
/// Keys are non-empty strings of at most <see cref="CubbyClientOptions.MaxKeyBytes"/> UTF-8 bytes.
/// </summary>
/// <remarks>
/// When a connection fails, a call is sent again, to the next endpoint not known to be down, within its
/// <see cref="CubbyClientOptions.OperationTimeout"/>: always when the command had not been written to the socket yet,
/// and, when it had been written but the connection was lost before the reply, only when running it twice leaves the
/// cache as running it once does. Every method here qualifies: reads (which renew a sliding expiry once more),
/// <see cref="RefreshAsync"/>, and the unconditional writes <see cref="PutAsync"/> and <see cref="EvictAsync"/>; a write
/// sent twice may report <see cref="WriteOutcome.Updated"/> or <see cref="RemoveOutcome.NotFound"/> for the second
/// run. Timeouts, error replies and cancellations are never retried. A call no endpoint can take (every one is down,
/// or failed it) fails with <see cref="CubbyConnectionException"/>. The same holds for the <c>IDistributedCache</c>
/// methods.
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
    /// Asks a silo (<c>CUBBY.OWNER</c>) which slot holds a key and on which silo that slot's shard is active. This is
    /// for looking, not routing: calls about the key go to any silo all the same. Nothing about the key is read or
    /// changed.
    /// </summary>
    /// <param name="key">The key.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>The key's slot and the RESP endpoint (<c>host:port</c>) of the silo where its shard is active.</returns>
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
    /// Returns the cached object, or runs <paramref name="factory"/>, stores its result and returns it. Concurrent
    /// callers in this process asking for the same missing key share one factory run.
    /// </summary>
    /// <typeparam name="T">The object's type.</typeparam>
    /// <param name="key">The key.</param>
    /// <param name="factory">Creates the object on a miss.</param>
    /// <param name="options">Expiry and flags for a created entry; <see cref="CacheEntryOptions.Never"/> when null.</param>
    /// <param name="cancellationToken">Cancels this caller's wait.</param>
    /// <returns>The cached or created object.</returns>
    ValueTask<T> GetOrCreateAsync<T>(string key, Func<CancellationToken, ValueTask<T>> factory, CacheEntryOptions? options = null, CancellationToken cancellationToken = default);
}
