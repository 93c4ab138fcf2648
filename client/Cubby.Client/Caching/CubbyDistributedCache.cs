using System.Buffers;
using Microsoft.Extensions.Caching.Distributed;

namespace Cubby.Client.Caching;

/// <summary>
/// <see cref="IDistributedCache"/> on Cubby: one shard-grain call per operation, millisecond expiry, and a sliding
/// window that the shard renews in the same turn as the read, never past the absolute expiry.
/// </summary>
/// <remarks>
/// The synchronous methods wait for the asynchronous call (<see cref="BlockingWait"/>): a pool thread blocked so is
/// replaced at once, so they finish when callers hold every pool thread.
/// </remarks>
internal sealed class CubbyDistributedCache(CubbyClient client) : IBufferDistributedCache
{
    public byte[]? Get(string key) => BlockingWait.Result(GetAsync(key));

    public async Task<byte[]?> GetAsync(string key, CancellationToken token = default) =>
        await client.GetAsync(key, token).ConfigureAwait(false);

    public void Set(string key, byte[] value, DistributedCacheEntryOptions options) => BlockingWait.Wait(SetAsync(key, value, options));

    public Task SetAsync(string key, byte[] value, DistributedCacheEntryOptions options, CancellationToken token = default)
    {
        ArgumentNullException.ThrowIfNull(value);
        return client.PutAsync(key, new ReadOnlySequence<byte>(value), Map(options), token).AsTask();
    }

    public void Refresh(string key) => BlockingWait.Wait(RefreshAsync(key));

    public Task RefreshAsync(string key, CancellationToken token = default) => client.RefreshAsync(key, token).AsTask();

    public void Remove(string key) => BlockingWait.Wait(RemoveAsync(key));

    public Task RemoveAsync(string key, CancellationToken token = default) => client.EvictAsync(key, token).AsTask();

    public bool TryGet(string key, IBufferWriter<byte> destination) => BlockingWait.Result(TryGetAsync(key, destination).AsTask());

    public async ValueTask<bool> TryGetAsync(string key, IBufferWriter<byte> destination, CancellationToken token = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        if (await client.GetAsync(key, token).ConfigureAwait(false) is not { } value)
        {
            return false;
        }

        // The array Orleans deserialized the reply into (or the near cache keeps), decompressed, written once.
        destination.Write(value);
        return true;
    }

    public void Set(string key, ReadOnlySequence<byte> value, DistributedCacheEntryOptions options) => BlockingWait.Wait(SetAsync(key, value, options).AsTask());

    public ValueTask SetAsync(string key, ReadOnlySequence<byte> value, DistributedCacheEntryOptions options, CancellationToken token = default)
    {
        var put = client.PutAsync(key, value, Map(options), token);
        return put.IsCompletedSuccessfully ? ValueTask.CompletedTask : new ValueTask(put.AsTask());
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
