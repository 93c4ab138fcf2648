using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using Cubby.Client.Filling;
using Cubby.Client.Gateways;
using Cubby.Client.NearCaching;
using Cubby.Client.Serialization;
using Cubby.Client.Shards;
using Cubby.Client.Tagging;
using Cubby.Sharding;
using Microsoft.Extensions.Options;

namespace Cubby.Client;

/// <summary>
/// The <see cref="ICubbyClient"/> as shard-grain calls, one per operation (one per shard for the batch forms); through
/// a gateway, reads and writes are coalesced into batches per silo first (<see cref="SiloBatches"/>), and with a near
/// cache reads are served from this process while the silos say nothing changed (<see cref="NearCacheReads"/>).
/// </summary>
internal sealed partial class CubbyClient : ICubbyClient, IDisposable
{
    private readonly CubbyClientOptions _options;
    private readonly ICubbySerializer _serializer;
    private readonly TimeProvider _time;
    private readonly ShardCalls _shards;
    private readonly IGrainFactory _grains;
    private readonly NearCacheReads? _near;

    // A grain on this silo receives the caller's array itself (Orleans copies nothing [Immutable]); it must not change
    // when the caller reuses its buffer. Through a gateway the array is serialized on the way, so it is passed as is.
    private readonly bool _copyValues;
    private readonly CancellationTokenSource _disposed = new();

    public CubbyClient(
        IOptions<CubbyClientOptions> options,
        IGrainFactory grains,
        GatewayConnection? gateway,
        ICubbySerializer? serializer = null,
        TimeProvider? time = null,
        SiloBatches? batches = null,
        (NearCache Cache, LeaseRenewals Renewals)? nearCache = null,
        GetOrCreateMetrics? fills = null)
    {
        Fills = fills ?? new GetOrCreateMetrics(null);
        _options = options.Value;
        _serializer = serializer ?? new SystemTextJsonCubbySerializer(_options.JsonSerializerOptions);
        _time = time ?? TimeProvider.System;
        _grains = grains;
        _shards = new ShardCalls(grains, _options.SlotCount, _options.OperationTimeout, gateway, batches);
        _copyValues = gateway is null;
        _near = nearCache is var (cache, renewals) ? new NearCacheReads(cache, renewals, _shards) : null;
        Epochs = new TagEpochs(this);

        // While the connection still works, so that writes stop waiting for this client's near cache as it closes.
        if (_near is { } near)
        {
            gateway?.BeforeStop(near.ReleaseAsync);
        }
    }

    /// <summary>What get-or-create calls through this client did.</summary>
    internal GetOrCreateMetrics Fills { get; }

    /// <summary>The batches per silo, when calls through the gateway are coalesced.</summary>
    internal SiloBatches? Batches => _shards.Batches;

    /// <summary>The near cache, when it is on.</summary>
    internal NearCache? NearCache => _near?.Cache;

    public ValueTask<WriteOutcome> PutAsync(string key, ReadOnlyMemory<byte> value, CacheEntryOptions? options = null, CancellationToken cancellationToken = default)
    {
        var target = Key(key);
        CheckValue(value.Length, nameof(value));
        return PutAsync(key, target, ValueArray(value), options ?? CacheEntryOptions.Never, cancellationToken);
    }

    public ValueTask<byte[]?> GetAsync(string key, CancellationToken cancellationToken = default)
    {
        if (_near is { } near)
        {
            ObjectDisposedException.ThrowIf(_disposed.IsCancellationRequested, this);
            ArgumentNullException.ThrowIfNull(key);
            if (near.TryGet(key, out var kept))
            {
                return UntaggedAsync(key, kept.Value, kept.Flags, kept, cancellationToken);
            }
        }

        return GetFromShardAsync(key, cancellationToken);
    }

    public async ValueTask<CacheEntry?> GetEntryAsync(string key, CancellationToken cancellationToken = default)
    {
        if (_near is not null)
        {
            return await ReadNearAsync(key, cancellationToken).ConfigureAwait(false) is { } read
                && await UntaggedAsync(key, read.Value, read.Flags, null, cancellationToken).ConfigureAwait(false) is { } nearValue
                ? new CacheEntry(nearValue, read.Flags, read.TimeToLive(_near!.Cache.Clock))
                : null;
        }

        return await ReadAsync(key, cancellationToken).ConfigureAwait(false) is { } entry
            && await UntaggedAsync(key, ValueOf(key, entry), entry.Flags, null, cancellationToken).ConfigureAwait(false) is { } value
            ? new CacheEntry(value, entry.Flags, entry.TimeToLive < 0 ? null : TimeSpan.FromMilliseconds(entry.TimeToLive))
            : null;
    }

    public async ValueTask<bool> ExistsAsync(string key, CancellationToken cancellationToken = default) =>
        await TimeToLiveAsync(key, cancellationToken).ConfigureAwait(false) != -2;

    public ValueTask<bool> RefreshAsync(string key, CancellationToken cancellationToken = default)
    {
        var (bytes, slot) = Key(key);
        return _shards.CallAsync(ShardOperation.Refresh(slot, bytes), static result => result.Found, static (grain, s) => grain.Refresh(s.Key), key, cancellationToken);
    }

    public async ValueTask<RemoveOutcome> EvictAsync(string key, CancellationToken cancellationToken = default)
    {
        var (bytes, slot) = Key(key);
        var removed = await DroppingAsync(
            key,
            _shards.CallAsync(
                ShardOperation.Remove(slot, bytes), static result => result.Found, static async (grain, s) => await grain.Remove([s.Key]).ConfigureAwait(false) > 0, key, cancellationToken)).ConfigureAwait(false);
        return removed ? RemoveOutcome.Removed : RemoveOutcome.NotFound;
    }

    public async ValueTask<TimeSpan?> GetTimeToLiveAsync(string key, CancellationToken cancellationToken = default) =>
        await TimeToLiveAsync(key, cancellationToken).ConfigureAwait(false) switch
        {
            -2 => null,
            -1 => Timeout.InfiniteTimeSpan,
            var milliseconds => TimeSpan.FromMilliseconds(milliseconds),
        };

    public async ValueTask<KeyOwner> GetOwnerAsync(string key, CancellationToken cancellationToken = default)
    {
        var (_, slot) = Key(key);
        var silo = await _shards.CallAsync(slot, 0, static (grain, _) => grain.Locate(), key, cancellationToken).ConfigureAwait(false);
        return new KeyOwner(slot, silo);
    }

    public void Dispose()
    {
        if (_disposed.IsCancellationRequested)
        {
            return;
        }

        _disposed.Cancel();
        Fills.Dispose();
        if (_near is { } near)
        {
            foreach (var link in near.Cache.Links)
            {
                _grains.DeleteObjectReference<Sharding.INearCacheReader>(link.Reference);
            }

            near.Dispose();
        }
    }

    /// <summary>Writes an entry whose value is a sequence (<c>IBufferDistributedCache</c>).</summary>
    internal ValueTask<WriteOutcome> PutAsync(string key, ReadOnlySequence<byte> value, CacheEntryOptions options, CancellationToken cancellationToken)
    {
        var target = Key(key);
        CheckValue(value.Length, nameof(value));
        return PutAsync(key, target, value.IsSingleSegment ? ValueArray(value.First) : value.ToArray(), options, cancellationToken);
    }

    private ValueTask<WriteOutcome> PutAsync(string key, (byte[] Bytes, int Slot) target, byte[] value, CacheEntryOptions options, CancellationToken cancellationToken)
    {
        var expiry = Expiry(options);
        return TagsOf(options) is { } tags
            ? PutTaggedAsync(key, target, value, expiry, options.Flags, tags, cancellationToken)
            : StoreAsync(key, target, value, expiry, options.Flags, cancellationToken);
    }

    private async ValueTask<WriteOutcome> PutTaggedAsync(
        string key, (byte[] Bytes, int Slot) target, byte[] value, ShardExpiry expiry, CacheEntryFlags flags, List<string> tags, CancellationToken cancellationToken)
    {
        var header = await TagHeaderAsync(tags, cancellationToken).ConfigureAwait(false);
        return await StoreAsync(key, target, Tagged(header, value, nameof(value)), expiry, flags | CacheEntryFlags.Tagged, cancellationToken).ConfigureAwait(false);
    }

    private ValueTask<WriteOutcome> StoreAsync(string key, (byte[] Bytes, int Slot) target, byte[] value, ShardExpiry expiry, CacheEntryFlags flags, CancellationToken cancellationToken)
    {
        var (bytes, slot) = target;
        if ((flags & CacheEntryFlags.Compressed) != 0)
        {
            value = EntryCompression.Compress(value);
        }

        return DroppingAsync(
            key,
            _shards.CallAsync(
                ShardOperation.Set(slot, bytes, value, expiry, flags, ShardWriteCondition.Always),
                static result => result.Outcome,
                static (grain, s) => grain.Set(s.Key, s.Value!, s.Expiry, s.Flags, s.Condition),
                key,
                cancellationToken));
    }

    /// <summary>
    /// A change of <paramref name="key"/> by this client: with a near cache, the key is dropped once the change is
    /// answered (or failed), and reads under way then keep nothing, so this client reads its own write at once. A strict
    /// near cache that takes values with changes is told of its own writes before they are answered, as every other
    /// is, and so holds the value it wrote: it drops the key only when the change failed.
    /// </summary>
    private ValueTask<T> DroppingAsync<T>(string key, ValueTask<T> change)
    {
        if (_near is not { } near)
        {
            return change;
        }

        if (change.IsCompletedSuccessfully)
        {
            if (!near.KeepsOwnWrites)
            {
                near.Drop(key);
            }

            return change;
        }

        return DroppedAfterAsync(near, key, change);

        static async ValueTask<T> DroppedAfterAsync(NearCacheReads near, string key, ValueTask<T> change)
        {
            var changed = false;
            try
            {
                var result = await change.ConfigureAwait(false);
                changed = true;
                return result;
            }
            finally
            {
                if (!changed || !near.KeepsOwnWrites)
                {
                    near.Drop(key);
                }
            }
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<byte[]?> GetFromShardAsync(string key, CancellationToken cancellationToken)
    {
        if (_near is not null)
        {
            return await ReadNearAsync(key, cancellationToken).ConfigureAwait(false) is { } read
                ? await UntaggedAsync(key, read.Value, read.Flags, null, cancellationToken).ConfigureAwait(false)
                : null;
        }

        var entry = await ReadAsync(key, cancellationToken).ConfigureAwait(false);
        return entry is null ? null : await UntaggedAsync(key, ValueOf(key, entry), entry.Flags, null, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>A read through the near cache: kept, or from the shard (and kept when it can be).</summary>
    private ValueTask<NearRead?> ReadNearAsync(string key, CancellationToken cancellationToken)
    {
        var (bytes, slot) = Key(key);
        return _near!.TryGet(key, out var kept) ? new ValueTask<NearRead?>(NearRead.Of(kept)) : _near.ReadAsync(key, bytes, slot, cancellationToken);
    }

    /// <summary>Reads an entry, renewing its sliding expiry in the same turn.</summary>
    private ValueTask<ShardEntry?> ReadAsync(string key, CancellationToken cancellationToken)
    {
        var (bytes, slot) = Key(key);
        return _shards.CallAsync(
            ShardOperation.Get(slot, bytes, slide: true),
            static result => result.Entry,
            static (grain, s) => grain.Get(s.Key, s.Slide),
            key,
            cancellationToken);
    }

    /// <summary>The entry's value, decompressed when it was stored compressed.</summary>
    internal static byte[] ValueOf(string key, ShardEntry entry) =>
        (entry.Flags & CacheEntryFlags.Compressed) != 0 ? EntryCompression.Decompress(entry.Value, key) : entry.Value;

    /// <summary>A value as an array the silo may keep: the caller's own when it may, a copy otherwise.</summary>
    private byte[] ValueArray(ReadOnlyMemory<byte> value) =>
        !_copyValues && MemoryMarshal.TryGetArray(value, out var segment) && segment.Offset == 0 && segment.Count == segment.Array!.Length
            ? segment.Array
            : value.ToArray();

    private ValueTask<long> TimeToLiveAsync(string key, CancellationToken cancellationToken)
    {
        var (bytes, slot) = Key(key);
        return _shards.CallAsync(ShardOperation.TimeToLive(slot, bytes), static result => result.TimeToLive, static (grain, s) => grain.TimeToLive(s.Key), key, cancellationToken);
    }

    private ShardExpiry Expiry(CacheEntryOptions options)
    {
        var (expiresAt, sliding) = options.Resolve(_time.GetUtcNow());
        return new ShardExpiry(expiresAt, sliding);
    }

    // Every call checks its key before anything else, so this is also where a disposed client refuses calls.
    private (byte[] Bytes, int Slot) Key(string key)
    {
        ObjectDisposedException.ThrowIf(_disposed.IsCancellationRequested, this);
        ArgumentNullException.ThrowIfNull(key);
        if (key.Length == 0)
        {
            throw new ArgumentException("The key must not be empty.", nameof(key));
        }

        if (key.Length * 3 > _options.MaxKeyBytes && Encoding.UTF8.GetByteCount(key) is var length && length > _options.MaxKeyBytes)
        {
            throw new ArgumentException($"The key is {length} UTF-8 bytes, over the limit of {_options.MaxKeyBytes} (Cubby:Client:MaxKeyBytes).", nameof(key));
        }

        var bytes = Encoding.UTF8.GetBytes(key);
        return (bytes, _shards.Map.SlotOf(bytes));
    }

    private void CheckValue(long length, string parameter)
    {
        if (length > _options.MaxValueBytes)
        {
            throw new ArgumentException($"The value is {length} bytes, over the limit of {_options.MaxValueBytes} (Cubby:Client:MaxValueBytes).", parameter);
        }
    }
}
