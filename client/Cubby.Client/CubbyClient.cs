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

/// <summary>The <see cref="ICubbyClient"/> over routed, multiplexed connections.</summary>
internal sealed partial class CubbyClient : ICubbyClient, IDisposable
{
    private readonly CubbyClientOptions _options;
    private readonly ICubbySerializer _serializer;
    private readonly TimeProvider _time;
    private readonly ClusterRouter _router;
    private readonly CancellationTokenSource _disposed = new();

    public CubbyClient(IOptions<CubbyClientOptions> options, ICubbySerializer? serializer = null, ILoggerFactory? loggers = null, TimeProvider? time = null)
    {
        _options = options.Value;
        _serializer = serializer ?? new SystemTextJsonCubbySerializer(_options.JsonSerializerOptions);
        _time = time ?? TimeProvider.System;
        _router = new ClusterRouter(_options, loggers ?? NullLoggerFactory.Instance, _time);
    }

    internal ClusterRouter Router => _router;

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
        var connection = await _router.ConnectionForAsync(key, cancellationToken).ConfigureAwait(false);
        return await connection.ExecuteAsync(ClientCommands.Exists(key), Replies.Integer, null, cancellationToken).ConfigureAwait(false) > 0;
    }

    public async ValueTask<bool> RefreshAsync(string key, CancellationToken cancellationToken = default)
    {
        CheckKey(key);
        var connection = await _router.ConnectionForAsync(key, cancellationToken).ConfigureAwait(false);
        return await connection.ExecuteAsync(ClientCommands.Refresh(key), Replies.Integer, null, cancellationToken).ConfigureAwait(false) == 1;
    }

    public async ValueTask<RemoveOutcome> EvictAsync(string key, CancellationToken cancellationToken = default)
    {
        CheckKey(key);
        var connection = await _router.ConnectionForAsync(key, cancellationToken).ConfigureAwait(false);
        var removed = await connection.ExecuteAsync(ClientCommands.Delete(key), Replies.Integer, null, cancellationToken).ConfigureAwait(false);
        return removed > 0 ? RemoveOutcome.Removed : RemoveOutcome.NotFound;
    }

    public async ValueTask<TimeSpan?> GetTimeToLiveAsync(string key, CancellationToken cancellationToken = default)
    {
        CheckKey(key);
        var connection = await _router.ConnectionForAsync(key, cancellationToken).ConfigureAwait(false);
        var milliseconds = await connection.ExecuteAsync(ClientCommands.TimeToLive(key), Replies.Integer, null, cancellationToken).ConfigureAwait(false);
        return milliseconds switch
        {
            -2 => null,
            -1 => Timeout.InfiniteTimeSpan,
            _ => TimeSpan.FromMilliseconds(milliseconds),
        };
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
        var connection = await _router.ConnectionForAsync(key, cancellationToken).ConfigureAwait(false);
        return (WriteOutcome)await SendPut(connection, key, value, expiresAt, sliding, options.Flags, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The same, blocking the calling thread without needing the thread pool.</summary>
    internal WriteOutcome Put(string key, ReadOnlySequence<byte> value, CacheEntryOptions options)
    {
        CheckKey(key);
        CheckValue(value.Length);
        var (expiresAt, sliding) = options.Resolve(_time.GetUtcNow());
        var connection = _router.ConnectionFor(key);
        byte[]? compressed = null;
        try
        {
            var payload = Prepare(value, options.Flags, ref compressed);
            return (WriteOutcome)connection.Execute(ClientCommands.Set(key, payload, expiresAt, sliding, options.Flags), Replies.Integer, null);
        }
        finally
        {
            Return(compressed);
        }
    }

    /// <summary>Reads an entry; with a destination, an uncompressed value is copied there instead of into an array.</summary>
    internal ValueTask<EntryReply> ReadEntryAsync(string key, IBufferWriter<byte>? destination, CancellationToken cancellationToken)
    {
        CheckKey(key);
        var routed = _router.ConnectionForAsync(key, cancellationToken);
        return routed.IsCompletedSuccessfully
            ? routed.Result.ExecuteAsync(ClientCommands.Get(key), Replies.Entry, destination, cancellationToken)
            : ReadEntryAfterRoutingAsync(routed, key, destination, cancellationToken);
    }

    internal EntryReply ReadEntry(string key, IBufferWriter<byte>? destination)
    {
        CheckKey(key);
        return _router.ConnectionFor(key).Execute(ClientCommands.Get(key), Replies.Entry, destination);
    }

    internal bool Refresh(string key)
    {
        CheckKey(key);
        return _router.ConnectionFor(key).Execute(ClientCommands.Refresh(key), Replies.Integer, null) == 1;
    }

    internal RemoveOutcome Evict(string key)
    {
        CheckKey(key);
        return _router.ConnectionFor(key).Execute(ClientCommands.Delete(key), Replies.Integer, null) > 0 ? RemoveOutcome.Removed : RemoveOutcome.NotFound;
    }

    /// <summary>The entry's value, decompressed when it was stored compressed.</summary>
    internal static byte[] ValueOf(string key, EntryReply entry) =>
        entry.Flags.HasFlag(CacheEntryFlags.Compressed) ? EntryCompression.Decompress(entry.Value, key) : entry.Value!;

    private static async ValueTask<EntryReply> ReadEntryAfterRoutingAsync(ValueTask<CubbyConnection> routed, string key, IBufferWriter<byte>? destination, CancellationToken cancellationToken)
    {
        var connection = await routed.ConfigureAwait(false);
        return await connection.ExecuteAsync(ClientCommands.Get(key), Replies.Entry, destination, cancellationToken).ConfigureAwait(false);
    }

    private static ValueTask<long> SendPut(CubbyConnection connection, string key, ReadOnlySequence<byte> value, long expiresAt, long sliding, CacheEntryFlags flags, CancellationToken cancellationToken)
    {
        byte[]? compressed = null;
        try
        {
            var payload = Prepare(value, flags, ref compressed);
            return connection.ExecuteAsync(ClientCommands.Set(key, payload, expiresAt, sliding, flags), Replies.Integer, null, cancellationToken);
        }
        finally
        {
            Return(compressed);
        }
    }

    private static ReadOnlySequence<byte> Prepare(ReadOnlySequence<byte> value, CacheEntryFlags flags, ref byte[]? compressed)
    {
        if (!flags.HasFlag(CacheEntryFlags.Compressed))
        {
            return value;
        }

        compressed = EntryCompression.Compress(value.IsSingleSegment ? value.FirstSpan : value.ToArray(), out var length);
        return new ReadOnlySequence<byte>(compressed, 0, length);
    }

    private static void Return(byte[]? compressed)
    {
        if (compressed is not null)
        {
            ArrayPool<byte>.Shared.Return(compressed);
        }
    }

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
