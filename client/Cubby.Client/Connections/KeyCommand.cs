using System.Buffers;

namespace Cubby.Client.Connections;

/// <summary>
/// A command on one key, kept as its arguments rather than its bytes so that a retry can encode it again (into
/// <see cref="CommandBuffer"/>, on whichever thread runs the retry) and send it to another endpoint.
/// </summary>
internal readonly struct KeyCommand
{
    private readonly Kind _kind;
    private readonly ReadOnlySequence<byte> _value;
    private readonly long _expiresAt;
    private readonly long _slidingWindow;
    private readonly CacheEntryFlags _flags;

    private KeyCommand(Kind kind, string key, bool idempotent, ReadOnlySequence<byte> value = default, long expiresAt = 0, long slidingWindow = 0, CacheEntryFlags flags = 0)
    {
        _kind = kind;
        Key = key;
        IsIdempotent = idempotent;
        _value = value;
        _expiresAt = expiresAt;
        _slidingWindow = slidingWindow;
        _flags = flags;
    }

    private enum Kind
    {
        Get,
        Refresh,
        Exists,
        Delete,
        TimeToLive,
        Owner,
        Set,
    }

    public string Key { get; }

    /// <summary>
    /// Whether running the command twice leaves the silo as running it once does, so it may be sent again when its
    /// connection was lost after it was written (it may or may not have run).
    /// </summary>
    public bool IsIdempotent { get; }

    /// <summary>CUBBY.GET: a read; a second read renews a sliding expiry once more, which a read does anyway.</summary>
    public static KeyCommand Get(string key) => new(Kind.Get, key, idempotent: true);

    /// <summary>CUBBY.REFRESH: renewing twice is renewing.</summary>
    public static KeyCommand Refresh(string key) => new(Kind.Refresh, key, idempotent: true);

    public static KeyCommand Exists(string key) => new(Kind.Exists, key, idempotent: true);

    /// <summary>DEL: the entry is gone either way (a second run may report it as not found).</summary>
    public static KeyCommand Delete(string key) => new(Kind.Delete, key, idempotent: true);

    public static KeyCommand TimeToLive(string key) => new(Kind.TimeToLive, key, idempotent: true);

    /// <summary>CUBBY.OWNER: asks where the key's shard is, and changes nothing.</summary>
    public static KeyCommand Owner(string key) => new(Kind.Owner, key, idempotent: true);

    /// <summary>
    /// An unconditional CUBBY.SET with an absolute expiry resolved once, so a second run writes the very same entry
    /// (and may report it as updated). A conditional write (NX, XX) would not be idempotent.
    /// </summary>
    public static KeyCommand Set(string key, ReadOnlySequence<byte> value, long expiresAt, long slidingWindow, CacheEntryFlags flags) =>
        new(Kind.Set, key, idempotent: true, value, expiresAt, slidingWindow, flags);

    /// <summary>Encodes the command into <see cref="CommandBuffer"/> (compressing the value when its flags ask).</summary>
    public ReadOnlySpan<byte> Encode() => _kind switch
    {
        Kind.Get => ClientCommands.Get(Key),
        Kind.Refresh => ClientCommands.Refresh(Key),
        Kind.Exists => ClientCommands.Exists(Key),
        Kind.Delete => ClientCommands.Delete(Key),
        Kind.TimeToLive => ClientCommands.TimeToLive(Key),
        Kind.Owner => ClientCommands.Owner(Key),
        _ => EncodeSet(),
    };

    private ReadOnlySpan<byte> EncodeSet()
    {
        if (!_flags.HasFlag(CacheEntryFlags.Compressed))
        {
            return ClientCommands.Set(Key, _value, _expiresAt, _slidingWindow, _flags);
        }

        var compressed = EntryCompression.Compress(_value.IsSingleSegment ? _value.FirstSpan : _value.ToArray(), out var length);
        try
        {
            // The command is a copy in the thread's command buffer, so the compressed bytes can go back at once.
            return ClientCommands.Set(Key, new ReadOnlySequence<byte>(compressed, 0, length), _expiresAt, _slidingWindow, _flags);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(compressed);
        }
    }
}
