using System.Buffers;
using Microsoft.Extensions.Caching.Distributed;

namespace Cubby.Client.Caching;

/// <summary>
/// <see cref="IDistributedCache"/> on Cubby: one round trip per call, millisecond expiry, and a sliding window that
/// the silo renews in the same turn as the read, never past the absolute expiry. The synchronous methods block
/// without needing the thread pool, so they cannot deadlock when it is saturated.
/// </summary>
internal sealed class CubbyDistributedCache(CubbyClient client) : IBufferDistributedCache
{
    public byte[]? Get(string key)
    {
        var entry = client.ReadEntry(key, null);
        return entry.Found ? CubbyClient.ValueOf(key, entry) : null;
    }

    public async Task<byte[]?> GetAsync(string key, CancellationToken token = default)
    {
        var entry = await client.ReadEntryAsync(key, null, token).ConfigureAwait(false);
        return entry.Found ? CubbyClient.ValueOf(key, entry) : null;
    }

    public void Set(string key, byte[] value, DistributedCacheEntryOptions options)
    {
        ArgumentNullException.ThrowIfNull(value);
        client.Put(key, new ReadOnlySequence<byte>(value), Map(options));
    }

    public Task SetAsync(string key, byte[] value, DistributedCacheEntryOptions options, CancellationToken token = default)
    {
        ArgumentNullException.ThrowIfNull(value);
        return client.PutAsync(key, new ReadOnlySequence<byte>(value), Map(options), token).AsTask();
    }

    public void Refresh(string key) => client.Refresh(key);

    public Task RefreshAsync(string key, CancellationToken token = default) => client.RefreshAsync(key, token).AsTask();

    public void Remove(string key) => client.Evict(key);

    public Task RemoveAsync(string key, CancellationToken token = default) => client.EvictAsync(key, token).AsTask();

    public bool TryGet(string key, IBufferWriter<byte> destination)
    {
        ArgumentNullException.ThrowIfNull(destination);
        return Copy(key, client.ReadEntry(key, destination), destination);
    }

    public async ValueTask<bool> TryGetAsync(string key, IBufferWriter<byte> destination, CancellationToken token = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        return Copy(key, await client.ReadEntryAsync(key, destination, token).ConfigureAwait(false), destination);
    }

    public void Set(string key, ReadOnlySequence<byte> value, DistributedCacheEntryOptions options) => client.Put(key, value, Map(options));

    public ValueTask SetAsync(string key, ReadOnlySequence<byte> value, DistributedCacheEntryOptions options, CancellationToken token = default)
    {
        var put = client.PutAsync(key, value, Map(options), token);
        return put.IsCompletedSuccessfully ? ValueTask.CompletedTask : new ValueTask(put.AsTask());
    }

    /// <summary>An uncompressed value was already written to the destination by the reader; a compressed one is written here.</summary>
    private static bool Copy(string key, Connections.EntryReply entry, IBufferWriter<byte> destination)
    {
        if (entry.Found && entry.Value is not null)
        {
            destination.Write(CubbyClient.ValueOf(key, entry));
        }

        return entry.Found;
    }

    private static CacheEntryOptions Map(DistributedCacheEntryOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return new CacheEntryOptions
        {
            AbsoluteExpiration = options.AbsoluteExpiration,
            AbsoluteExpirationRelativeToNow = options.AbsoluteExpirationRelativeToNow,
            SlidingExpiration = options.SlidingExpiration,
        };
    }
}
