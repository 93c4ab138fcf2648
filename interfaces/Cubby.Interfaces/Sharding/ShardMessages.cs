using Orleans;

namespace Cubby.Sharding;

/// <summary>An entry read from a shard: its value, flags and time left to live.</summary>
/// <param name="Value">The value.</param>
/// <param name="Flags">The flags stored with it.</param>
/// <param name="TimeToLive">Milliseconds left to live after the read (and its sliding renewal); -1 without expiry.</param>
/// <param name="SlidingWindow">The sliding window in milliseconds that reads renew, or 0 when the entry does not slide.</param>
[GenerateSerializer, Immutable, SuppressReferenceTracking]
public sealed record ShardEntry([property: Id(0)] byte[] Value, [property: Id(1)] CacheEntryFlags Flags, [property: Id(2)] long TimeToLive, [property: Id(3)] long SlidingWindow = 0);

/// <summary>
/// An entry whole, as RENAME and COPY carry it from one shard to another: its value, type, flags and expiry settings.
/// </summary>
/// <param name="Value">The value (a hash in Cubby's hash encoding when <paramref name="Kind"/> says so).</param>
/// <param name="Kind">What the value holds.</param>
/// <param name="Flags">The flags stored with it.</param>
/// <param name="ExpiresAt">Unix milliseconds when it expires, or 0 for never.</param>
/// <param name="SlidingWindow">The sliding window in milliseconds renewed by reads, or 0.</param>
/// <param name="AbsoluteDeadline">Unix milliseconds a sliding entry may never live past, or 0.</param>
[GenerateSerializer, Immutable]
public sealed record ShardEntryCopy(
    [property: Id(0)] byte[] Value,
    [property: Id(1)] EntryKind Kind,
    [property: Id(2)] CacheEntryFlags Flags,
    [property: Id(3)] long ExpiresAt,
    [property: Id(4)] long SlidingWindow,
    [property: Id(5)] long AbsoluteDeadline);

/// <summary>
/// When an entry written through <see cref="IShardGrain"/> expires: never (both zero), at an absolute time, after a
/// sliding window renewed by every read, or both (the window never renews past the absolute time).
/// </summary>
/// <param name="ExpiresAt">Unix milliseconds of the absolute expiry, or 0 for none.</param>
/// <param name="SlidingWindow">The sliding window in milliseconds, or 0 for none.</param>
[GenerateSerializer, Immutable]
public readonly record struct ShardExpiry([property: Id(0)] long ExpiresAt, [property: Id(1)] long SlidingWindow)
{
    /// <summary>No expiry.</summary>
    public static ShardExpiry Never => default;
}

/// <summary>When a write through <see cref="IShardGrain"/> applies.</summary>
[GenerateSerializer]
public enum ShardWriteCondition
{
    /// <summary>Always.</summary>
    Always,

    /// <summary>Only when the key is absent (NX).</summary>
    IfAbsent,

    /// <summary>Only when the key exists (XX).</summary>
    IfPresent,
}

/// <summary>A shard's entry counts.</summary>
/// <param name="Entries">Entries held, expired ones not yet collected included.</param>
/// <param name="WithExpiry">Of those, the ones with an expiry.</param>
[GenerateSerializer, Immutable]
public readonly record struct ShardCounts([property: Id(0)] long Entries, [property: Id(1)] long WithExpiry);

/// <summary>A write that does not fit in the silo's memory budget, even after evicting what could be evicted.</summary>
[GenerateSerializer]
public sealed class CubbyOutOfMemoryException : Exception
{
    /// <summary>Creates the exception with the default message.</summary>
    public CubbyOutOfMemoryException()
        : base("The entry does not fit in the silo's memory budget (Cubby:MaxMemoryBytes), even after eviction.")
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    /// <param name="message">The message.</param>
    public CubbyOutOfMemoryException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and the exception that caused it.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public CubbyOutOfMemoryException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}

/// <summary>A command for one kind of value met a key holding another: a string read of a hash, a hash write to a string.</summary>
[GenerateSerializer]
public sealed class WrongTypeException : Exception
{
    /// <summary>Redis's error text, which the RESP front door answers with.</summary>
    public const string RedisError = "WRONGTYPE Operation against a key holding the wrong kind of value";

    /// <summary>Creates the exception with Redis's text.</summary>
    public WrongTypeException()
        : base(RedisError)
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    /// <param name="message">The message.</param>
    public WrongTypeException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and the exception that caused it.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public WrongTypeException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
