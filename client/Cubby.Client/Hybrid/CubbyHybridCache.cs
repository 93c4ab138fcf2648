using System.Buffers;
using System.Collections.Concurrent;
using Cubby.Client.NearCaching;
using Cubby.Client.Tagging;
using Cubby.Diagnostics;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.Caching.Memory;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Cubby.Client.Hybrid;

/// <summary>
/// Cubby's <see cref="HybridCache"/>. Its local tier is the client's near cache, which the silos keep coherent: a copy
/// is dropped when its key changes anywhere, so no instance serves a value another replaced (with
/// <see cref="NearCacheCoherence.Strict"/>). Tags are epochs (<see cref="TagEpochs"/>): removing a tag is one write, and
/// every instance's copies of its entries are misses once it returns. Concurrent callers in this instance for one
/// missing key share one factory run. Design: <c>docs/hybrid-cache.md</c>.
/// </summary>
internal sealed partial class CubbyHybridCache : HybridCache
{
    private static readonly TimeSpan DefaultExpiration = TimeSpan.FromMinutes(5);

    /// <summary>The largest writer a thread keeps for its next encoding; a larger one was for a rare large value.</summary>
    private const int MaxKeptWriter = 64 * 1024;

    private static readonly IReadOnlyList<string> NoTags = [];

    [ThreadStatic]
    private static ArrayBufferWriter<byte>? t_writer;

    private readonly CubbyClient _client;
    private readonly HybridSerializers _serializers;
    private readonly TagEpochs _epochs;
    private readonly IMemoryCache _localOnly;
    private readonly NearCacheClock _clock;
    private readonly ILogger _logger;
    private readonly HybridCacheOptions _options;
    private readonly ConcurrentDictionary<string, object> _flights = new();
    private volatile bool _anyLocalOnly;
    private CacheEntryOptions _lastStored = CacheEntryOptions.ExpiresIn(DefaultExpiration);

    public CubbyHybridCache(
        CubbyClient client, HybridSerializers serializers, IMemoryCache localOnly, IOptions<HybridCacheOptions> options, TimeProvider time, ILogger logger)
    {
        _client = client;
        _serializers = serializers;
        _epochs = client.Epochs;
        _localOnly = localOnly;
        _options = options.Value;
        _clock = client.ClockOr(time);
        _logger = logger;
    }

    public override ValueTask<T> GetOrCreateAsync<TState, T>(
        string key, TState state, Func<TState, CancellationToken, ValueTask<T>> factory, HybridCacheEntryOptions? options = null, IEnumerable<string>? tags = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(key);
        ArgumentNullException.ThrowIfNull(factory);
        var flags = FlagsOf(options);
        if (!UsableKey(key))
        {
            return (flags & HybridCacheEntryFlags.DisableUnderlyingData) != 0 ? default : factory(state, cancellationToken);
        }

        if ((flags & HybridCacheEntryFlags.DisableLocalCacheRead) == 0 && TryGetLocal<T>(key, options, flags, out var local))
        {
            return new ValueTask<T>(local);
        }

        return JoinAsync(key, state, factory, options, flags, tags, cancellationToken);
    }

    public override ValueTask SetAsync<T>(string key, T value, HybridCacheEntryOptions? options = null, IEnumerable<string>? tags = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(key);
        if (!UsableKey(key))
        {
            return default;
        }

        // Most writes find their tags' epochs kept here and are encoded at once: the write is their only wait.
        var encoding = EncodeAsync(value, TagsOf(tags), cancellationToken);
        return encoding.IsCompletedSuccessfully
            ? Store(key, value, encoding.Result, options, FlagsOf(options), cancellationToken)
            : StoreEncodedAsync(key, value, encoding, options, cancellationToken);
    }

    // A method of its own, not a local function: capturing the value would allocate a closure on every SetAsync.
    private async ValueTask StoreEncodedAsync<T>(string key, T value, ValueTask<byte[]?> encoding, HybridCacheEntryOptions? options, CancellationToken cancellationToken) =>
        await Store(key, value, await encoding.ConfigureAwait(false), options, FlagsOf(options), cancellationToken).ConfigureAwait(false);

    public override async ValueTask RemoveAsync(string key, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(key);
        if (UsableKey(key))
        {
            ForgetLocalOnly(key);
            await _client.EvictAsync(key, cancellationToken).ConfigureAwait(false);
        }
    }

    public override async ValueTask RemoveAsync(IEnumerable<string> keys, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(keys);
        var usable = keys.Where(UsableKey).Distinct(StringComparer.Ordinal).ToArray();
        foreach (var key in usable)
        {
            ForgetLocalOnly(key);
        }

        if (usable.Length > 0)
        {
            await _client.EvictManyAsync(usable, cancellationToken).ConfigureAwait(false);
        }
    }

    public override ValueTask RemoveByTagAsync(string tag, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(tag);
        return RemoveByTagAsync([tag], cancellationToken);
    }

    public override async ValueTask RemoveByTagAsync(IEnumerable<string> tags, CancellationToken cancellationToken = default)
    {
        var distinct = TagsOf(tags ?? throw new ArgumentNullException(nameof(tags)));
        if (distinct.Count > 0)
        {
            await _epochs.MoveOnAsync(distinct, cancellationToken).ConfigureAwait(false);
            _client.Fills.TagsRemoved(distinct.Count);
        }
    }

    /// <summary>
    /// A servable local copy: the near cache's (decoded once, kept with it), else the local-only store's. A kept entry
    /// not decoded yet (a write's new value pushed here, a plain read's) is decoded now, with this call's local expiry,
    /// when its epochs are kept here too; otherwise the slow path decodes it.
    /// </summary>
    private bool TryGetLocal<T>(string key, HybridCacheEntryOptions? options, HybridCacheEntryFlags flags, out T value)
    {
        value = default!;
        LocalCopy? copy = null;
        if (_client.TryGetKept(key, out var entry))
        {
            copy = entry.Decoded as LocalCopy;
            if (copy is null || !copy.IsOf<T>())
            {
                if ((flags & HybridCacheEntryFlags.DisableLocalCacheWrite) != 0
                    || (copy = LocalCopy.Of<T>(entry.Value, _serializers, LocalDeadline(options), _epochs.Written)) is null)
                {
                    return false;
                }

                entry.Decoded = copy;
            }
        }
        else if (_anyLocalOnly && _localOnly.TryGetValue(key, out var stored))
        {
            copy = stored as LocalCopy;
        }

        if (copy is null || !copy.IsOf<T>() || !Unexpired(key, copy) || copy.Epochs.IsCurrentKept(_epochs) != true)
        {
            return false;
        }

        value = copy.Read<T>(_serializers);
        _client.Fills.LocalHit();
        return true;
    }

    /// <summary>The local-only copy of <paramref name="key"/> when its epochs hold, asking the cluster for those not kept.</summary>
    private async ValueTask<LocalCopy?> LocalOnlyAsync<T>(string key, CancellationToken cancellationToken) =>
        _anyLocalOnly && _localOnly.TryGetValue(key, out var stored) && stored is LocalCopy copy && copy.IsOf<T>() && Unexpired(key, copy)
            && await copy.Epochs.IsCurrentAsync(_epochs, cancellationToken).ConfigureAwait(false)
            ? copy
            : null;

    /// <summary>Whether a copy is within its <c>LocalCacheExpiration</c>; one past it is dropped, so the next read asks the cluster.</summary>
    private bool Unexpired(string key, LocalCopy copy)
    {
        if (_clock.Before(_clock.Approximately, copy.LocalDeadline))
        {
            return true;
        }

        _client.DropKept(key);
        ForgetLocalOnly(key);
        return false;
    }

    private HybridCacheEntryFlags FlagsOf(HybridCacheEntryOptions? options) =>
        options?.Flags ?? _options.DefaultEntryOptions?.Flags ?? HybridCacheEntryFlags.None;

    private TimeSpan ExpirationOf(HybridCacheEntryOptions? options) =>
        options?.Expiration ?? _options.DefaultEntryOptions?.Expiration ?? DefaultExpiration;

    /// <summary>
    /// The client's options for a write under <paramref name="options"/>: the last ones made when their expiration is
    /// the same, as it is for most writes, so a write allocates none.
    /// </summary>
    private CacheEntryOptions StoredFor(HybridCacheEntryOptions? options)
    {
        var expiration = ExpirationOf(options);
        var last = _lastStored;
        if (last.AbsoluteExpirationRelativeToNow != expiration)
        {
            _lastStored = last = CacheEntryOptions.ExpiresIn(expiration);
        }

        return last;
    }

    private TimeSpan LocalExpirationOf(HybridCacheEntryOptions? options) =>
        options?.LocalCacheExpiration ?? _options.DefaultEntryOptions?.LocalCacheExpiration ?? ExpirationOf(options);

    private long LocalDeadline(HybridCacheEntryOptions? options) => _clock.Now + (long)LocalExpirationOf(options).TotalMilliseconds;

    /// <summary>
    /// Whether the cache may hold <paramref name="key"/>: as HybridCache does, a key that is empty or longer than
    /// <see cref="HybridCacheOptions.MaximumKeyLength"/> is passed over (logged): the factory runs and nothing is kept.
    /// </summary>
    private bool UsableKey(string key)
    {
        if (key.Length == 0 || key.Length > _options.MaximumKeyLength || key.StartsWith(TagEpochs.KeyPrefix, StringComparison.Ordinal))
        {
            LogKeyPassedOver(_logger, key.Length, _options.MaximumKeyLength);
            return false;
        }

        return true;
    }

    private static IReadOnlyList<string> TagsOf(IEnumerable<string>? tags) => tags is null ? NoTags : TagEpochs.Distinct(tags, everything: true, nameof(tags));

    private void ForgetLocalOnly(string key)
    {
        if (_anyLocalOnly)
        {
            _localOnly.Remove(key);
        }
    }

    /// <summary>
    /// Serializes <paramref name="value"/> behind the epochs of its tags; null when it is over the payload limit. When
    /// every epoch is kept here it completes at once, through this thread's writer.
    /// </summary>
    private ValueTask<byte[]?> EncodeAsync<T>(T value, IReadOnlyList<string> tags, CancellationToken cancellationToken)
    {
        // Taken, not borrowed: a serializer that writes to this cache meanwhile makes its own.
        var writer = t_writer ?? new ArrayBufferWriter<byte>();
        t_writer = null;
        try
        {
            return _epochs.TryWriteHeader(writer, tags, everything: true)
                ? new ValueTask<byte[]?>(Encoded(writer, value))
                : EncodeAfterEpochsAsync(value, tags, cancellationToken);
        }
        finally
        {
            writer.ResetWrittenCount();
            if (writer.Capacity <= MaxKeptWriter)
            {
                t_writer = writer;
            }
        }
    }

    /// <summary>Serializes <paramref name="value"/> once its tags' epochs are read or given.</summary>
    private async ValueTask<byte[]?> EncodeAfterEpochsAsync<T>(T value, IReadOnlyList<string> tags, CancellationToken cancellationToken)
    {
        var writer = new ArrayBufferWriter<byte>();
        await _epochs.WriteHeaderAsync(writer, tags, everything: true, cancellationToken).ConfigureAwait(false);
        return Encoded(writer, value);
    }

    /// <summary>The payload: the header in <paramref name="writer"/>, then <paramref name="value"/>; null when over the limit.</summary>
    private byte[]? Encoded<T>(ArrayBufferWriter<byte> writer, T value)
    {
        _serializers.For<T>().Serialize(value, writer);
        if (writer.WrittenCount > _options.MaximumPayloadBytes)
        {
            LogPayloadTooLarge(_logger, writer.WrittenCount, _options.MaximumPayloadBytes);
            return null;
        }

        return writer.WrittenSpan.ToArray();
    }

    /// <summary>
    /// Writes an encoded entry (none when <paramref name="payload"/> is null) where its flags allow: to the cluster, or,
    /// when that is off, to this process only.
    /// </summary>
    private ValueTask Store<T>(string key, T value, byte[]? payload, HybridCacheEntryOptions? options, HybridCacheEntryFlags flags, CancellationToken cancellationToken)
    {
        ForgetLocalOnly(key);
        if (payload is null)
        {
            return default;
        }

        if ((flags & HybridCacheEntryFlags.DisableDistributedCacheWrite) == 0)
        {
            if ((flags & HybridCacheEntryFlags.DisableLocalCacheWrite) == 0 && _client.TryGetKept(key, out var kept))
            {
                kept.Writing = LocalCopy.Written(payload, value, LocalDeadline(options), _epochs.Written);
            }

            var write = _client.PutAsync(key, payload, StoredFor(options), cancellationToken);
            if (!write.IsCompletedSuccessfully)
            {
                return new ValueTask(write.AsTask());
            }

            _ = write.Result;
        }
        else if ((flags & HybridCacheEntryFlags.DisableLocalCacheWrite) == 0 && LocalCopy.Of<T>(payload, _serializers, LocalDeadline(options), _epochs.Written) is { } copy)
        {
            _anyLocalOnly = true;
            _localOnly.Set(key, copy, LocalExpirationOf(options));
        }

        return default;
    }

    [LoggerMessage(EventId = LogEvents.HybridKeyPassedOver, Level = LogLevel.Warning, Message = "HybridCache key of {Length} characters passed over: empty, reserved, or over MaximumKeyLength ({Limit})")]
    private static partial void LogKeyPassedOver(ILogger logger, int length, int limit);

    [LoggerMessage(EventId = LogEvents.HybridPayloadTooLarge, Level = LogLevel.Warning, Message = "HybridCache value of {Bytes} bytes not cached: over MaximumPayloadBytes ({Limit})")]
    private static partial void LogPayloadTooLarge(ILogger logger, int bytes, long limit);
}
