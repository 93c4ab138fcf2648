using System.Buffers;
using System.Collections.Concurrent;
using Cubby.Client.Filling;

namespace Cubby.Client;

internal sealed partial class CubbyClient
{
    private readonly ConcurrentDictionary<string, Lazy<Task>> _creating = new();

    public async ValueTask<WriteOutcome> PutObjectAsync<T>(string key, T value, CacheEntryOptions? options = null, CancellationToken cancellationToken = default)
    {
        var buffer = new ArrayBufferWriter<byte>();
        _serializer.Serialize(value, buffer);
        return await PutAsync(key, buffer.WrittenMemory, options, cancellationToken).ConfigureAwait(false);
    }

    public async ValueTask<T?> GetObjectAsync<T>(string key, CancellationToken cancellationToken = default)
    {
        var bytes = await GetAsync(key, cancellationToken).ConfigureAwait(false);
        return bytes is null ? default : _serializer.Deserialize<T>(bytes);
    }

    public async ValueTask<T> GetOrCreateAsync<T>(string key, Func<CancellationToken, ValueTask<T>> factory, CacheEntryOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentNullException.ThrowIfNull(key);
        if (_near is { } near && near.TryGet(key, out var kept)
            && await UntaggedAsync(key, kept.Value, kept.Flags, kept, cancellationToken).ConfigureAwait(false) is { } local)
        {
            Fills.LocalHit();
            return _serializer.Deserialize<T>(local)!;
        }

        var cached = await GetAsync(key, cancellationToken).ConfigureAwait(false);
        if (cached is not null)
        {
            Fills.RemoteHit();
            return _serializer.Deserialize<T>(cached)!;
        }

        // One wait per missing key in this process; late callers await the run already under way.
        var run = _creating.GetOrAdd(key, static (k, state) => new Lazy<Task>(() => state.Client.CreateAsync(k, state.Factory, state.Options)), (Client: this, Factory: factory, Options: options));
        if (run.Value is not Task<T> created)
        {
            throw new InvalidOperationException($"GetOrCreateAsync is already creating '{key}' as another type than {typeof(T).Name}.");
        }

        return await created.WaitAsync(cancellationToken).ConfigureAwait(false);
    }

    // One factory run per missing key across the cluster: whoever the key's shard grants the lease runs it, and the
    // others read what it wrote (docs/hybrid-cache.md).
    private async Task<T> CreateAsync<T>(string key, Func<CancellationToken, ValueTask<T>> factory, CacheEntryOptions? options)
    {
        try
        {
            return await ClusterFill.RunAsync(
                this,
                key,
                async (found, flags, token) => await UntaggedAsync(key, found, flags, null, token).ConfigureAwait(false) is { } value ? (true, _serializer.Deserialize<T>(value)!) : (false, default!),
                factory,
                async (value, token) => await PutObjectAsync(key, value, options, token).ConfigureAwait(false),
                present: false,
                _disposed.Token).ConfigureAwait(false);
        }
        finally
        {
            _creating.TryRemove(key, out _);
        }
    }
}
