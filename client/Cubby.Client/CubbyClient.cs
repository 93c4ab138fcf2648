using System.Buffers;
using System.Runtime.CompilerServices;
using System.Text;
using Cubby.Client.Connections;
using Cubby.Client.Routing;
using Cubby.Client.Serialization;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Cubby.Client;

/// <summary>The <see cref="ICubbyClient"/> over multiplexed connections to the first silo up among the configured endpoints.</summary>
internal sealed partial class CubbyClient : ICubbyClient, IDisposable
{
    private readonly CubbyClientOptions _options;
    private readonly ICubbySerializer _serializer;
    private readonly TimeProvider _time;
    private readonly SeedRouter _router;
    private readonly CancellationTokenSource _disposed = new();

    public CubbyClient(IOptions<CubbyClientOptions> options, ICubbySerializer? serializer = null, ILoggerFactory? loggers = null, TimeProvider? time = null)
    {
        _options = options.Value;
        _serializer = serializer ?? new SystemTextJsonCubbySerializer(_options.JsonSerializerOptions);
        _time = time ?? TimeProvider.System;
        _router = new SeedRouter(_options, loggers ?? NullLoggerFactory.Instance, _time);
    }

    internal SeedRouter Router => _router;

    public ValueTask<WriteOutcome> PutAsync(string key, ReadOnlyMemory<byte> value, CacheEntryOptions? options = null, CancellationToken cancellationToken = default) =>
        PutAsync(key, new ReadOnlySequence<byte>(value), options, cancellationToken);

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<byte[]?> GetAsync(string key, CancellationToken cancellationToken = default)
    {
        var entry = await ReadEntryAsync(key, null, cancellationToken).ConfigureAwait(false);
        return entry.Found ? ValueOf(key, entry) : null;
    }

    public async ValueTask<CacheEntry?> GetEntryAsync(string key, CancellationToken cancellationToken = default)
    {
        var entry = await ReadEntryAsync(key, null, cancellationToken).ConfigureAwait(false);
        return entry.Found
            ? new CacheEntry(ValueOf(key, entry), entry.Flags, entry.TimeToLiveMs < 0 ? null : TimeSpan.FromMilliseconds(entry.TimeToLiveMs))
            : null;
    }

    public async ValueTask<bool> ExistsAsync(string key, CancellationToken cancellationToken = default)
    {
        CheckKey(key);
        return await _router.SendAsync(KeyCommand.Exists(key), Replies.Integer, null, cancellationToken).ConfigureAwait(false) > 0;
    }

    public async ValueTask<bool> RefreshAsync(string key, CancellationToken cancellationToken = default)
    {
        CheckKey(key);
        return await _router.SendAsync(KeyCommand.Refresh(key), Replies.Integer, null, cancellationToken).ConfigureAwait(false) == 1;
    }

    public async ValueTask<RemoveOutcome> EvictAsync(string key, CancellationToken cancellationToken = default)
    {
        CheckKey(key);
        var removed = await _router.SendAsync(KeyCommand.Delete(key), Replies.Integer, null, cancellationToken).ConfigureAwait(false);
        return removed > 0 ? RemoveOutcome.Removed : RemoveOutcome.NotFound;
    }

    public async ValueTask<TimeSpan?> GetTimeToLiveAsync(string key, CancellationToken cancellationToken = default)
    {
        CheckKey(key);
        var milliseconds = await _router.SendAsync(KeyCommand.TimeToLive(key), Replies.Integer, null, cancellationToken).ConfigureAwait(false);
        return milliseconds switch
        {
            -2 => null,
            -1 => Timeout.InfiniteTimeSpan,
            _ => TimeSpan.FromMilliseconds(milliseconds),
        };
    }

    public ValueTask<KeyOwner> GetOwnerAsync(string key, CancellationToken cancellationToken = default)
    {
        CheckKey(key);
        return _router.SendAsync(KeyCommand.Owner(key), Replies.Owner, null, cancellationToken);
    }

    public void Dispose()
    {
        if (_disposed.IsCancellationRequested)
        {
            return;
        }

        _disposed.Cancel();
        _router.Dispose();
    }

    /// <summary>Writes an entry; the value may be a sequence (<c>IBufferDistributedCache</c>).</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    internal async ValueTask<WriteOutcome> PutAsync(string key, ReadOnlySequence<byte> value, CacheEntryOptions? options, CancellationToken cancellationToken)
    {
        CheckKey(key);
        CheckValue(value.Length);
        options ??= CacheEntryOptions.Never;
        var (expiresAt, sliding) = options.Resolve(_time.GetUtcNow());
        return (WriteOutcome)await _router.SendAsync(KeyCommand.Set(key, value, expiresAt, sliding, options.Flags), Replies.Integer, null, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The same, blocking the calling thread without needing the thread pool.</summary>
    internal WriteOutcome Put(string key, ReadOnlySequence<byte> value, CacheEntryOptions options)
    {
        CheckKey(key);
        CheckValue(value.Length);
        var (expiresAt, sliding) = options.Resolve(_time.GetUtcNow());
        return (WriteOutcome)_router.Send(KeyCommand.Set(key, value, expiresAt, sliding, options.Flags), Replies.Integer, null);
    }

    /// <summary>Reads an entry; with a destination, an uncompressed value is copied there instead of into an array.</summary>
    internal ValueTask<EntryReply> ReadEntryAsync(string key, IBufferWriter<byte>? destination, CancellationToken cancellationToken)
    {
        CheckKey(key);
        return _router.SendAsync(KeyCommand.Get(key), Replies.Entry, destination, cancellationToken);
    }

    internal EntryReply ReadEntry(string key, IBufferWriter<byte>? destination)
    {
        CheckKey(key);
        return _router.Send(KeyCommand.Get(key), Replies.Entry, destination);
    }

    internal bool Refresh(string key)
    {
        CheckKey(key);
        return _router.Send(KeyCommand.Refresh(key), Replies.Integer, null) == 1;
    }

    internal RemoveOutcome Evict(string key)
    {
        CheckKey(key);
        return _router.Send(KeyCommand.Delete(key), Replies.Integer, null) > 0 ? RemoveOutcome.Removed : RemoveOutcome.NotFound;
    }

    /// <summary>The entry's value, decompressed when it was stored compressed.</summary>
    internal static byte[] ValueOf(string key, EntryReply entry) =>
        entry.Flags.HasFlag(CacheEntryFlags.Compressed) ? EntryCompression.Decompress(entry.Value, key) : entry.Value!;

    // Every call checks its key before anything else, so this is also where a disposed client refuses calls at once
    // (its connections are gone; without this a call would wait out the connect timeout).
    private void CheckKey(string key)
    {
        ObjectDisposedException.ThrowIf(_disposed.IsCancellationRequested, this);
        ArgumentNullException.ThrowIfNull(key);
        if (key.Length == 0)
        {
            throw new ArgumentException("The key must not be empty.", nameof(key));
        }

        if (key.Length * 3 > _options.MaxKeyBytes && Encoding.UTF8.GetByteCount(key) is var bytes && bytes > _options.MaxKeyBytes)
        {
            throw new ArgumentException($"The key is {bytes} UTF-8 bytes, over the limit of {_options.MaxKeyBytes} (Cubby:Client:MaxKeyBytes).", nameof(key));
        }
    }

    private void CheckValue(long length, [CallerArgumentExpression(nameof(length))] string? value = null)
    {
        if (length > _options.MaxValueBytes)
        {
            throw new ArgumentException($"The value is {length} bytes, over the limit of {_options.MaxValueBytes} (Cubby:Client:MaxValueBytes).", value);
        }
    }
}
