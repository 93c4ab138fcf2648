namespace Cubby.Client;

/// <summary>
/// How long an entry lives and how it is stored. Expiry follows <c>IDistributedCache</c>'s rules, at millisecond
/// precision: a relative expiry wins over an absolute one; a sliding window is renewed by every read and refresh,
/// never past the absolute expiry; no expiry at all means the entry lives until evicted or removed.
/// </summary>
public sealed record CacheEntryOptions
{
    /// <summary>An entry that never expires.</summary>
    public static CacheEntryOptions Never { get; } = new();

    /// <summary>When the entry expires, at the latest.</summary>
    public DateTimeOffset? AbsoluteExpiration { get; init; }

    /// <summary>How long from now the entry expires, at the latest; wins over <see cref="AbsoluteExpiration"/>.</summary>
    public TimeSpan? AbsoluteExpirationRelativeToNow { get; init; }

    /// <summary>How long the entry may go unread before it expires.</summary>
    public TimeSpan? SlidingExpiration { get; init; }

    /// <summary>Storage flags; <see cref="CacheEntryFlags.Compressed"/> Brotli-compresses the value.</summary>
    public CacheEntryFlags Flags { get; init; }

    /// <summary>
    /// Tags the entry carries: <see cref="ICubbyClient.RemoveByTagAsync(string, CancellationToken)"/> of any of them
    /// makes it a miss for every client. Shared with Cubby's HybridCache, whose tags are the same. Each is non-empty and
    /// not <c>"*"</c>; none by default.
    /// </summary>
    public IReadOnlyList<string>? Tags { get; init; }

    /// <summary>Expires <paramref name="relative"/> from now.</summary>
    /// <param name="relative">A positive duration.</param>
    public static CacheEntryOptions ExpiresIn(TimeSpan relative) => new() { AbsoluteExpirationRelativeToNow = relative };

    /// <summary>Expires at <paramref name="absolute"/>.</summary>
    /// <param name="absolute">A moment in the future.</param>
    public static CacheEntryOptions ExpiresAt(DateTimeOffset absolute) => new() { AbsoluteExpiration = absolute };

    /// <summary>Expires after going unread for <paramref name="window"/>.</summary>
    /// <param name="window">A positive duration.</param>
    public static CacheEntryOptions Sliding(TimeSpan window) => new() { SlidingExpiration = window };

    /// <summary>
    /// The absolute expiry (Unix ms, 0 for none) and sliding window (ms, 0 for none) to send, checked against <paramref name="now"/>.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">An absolute expiry not in the future, or a relative or sliding one not positive.</exception>
#pragma warning disable CA2208 // The exceptions name the option at fault, as IDistributedCache implementations do.
    internal (long ExpiresAt, long SlidingWindow) Resolve(DateTimeOffset now)
    {
        long expiresAt = 0;
        if (AbsoluteExpirationRelativeToNow is { } relative)
        {
            if (relative <= TimeSpan.Zero)
            {
                throw new ArgumentOutOfRangeException(nameof(AbsoluteExpirationRelativeToNow), relative, "The relative expiration value must be positive.");
            }

            expiresAt = CeilingUnixMilliseconds(now + relative);
        }
        else if (AbsoluteExpiration is { } absolute)
        {
            if (absolute <= now)
            {
                throw new ArgumentOutOfRangeException(nameof(AbsoluteExpiration), absolute, "The absolute expiration value must be in the future.");
            }

            expiresAt = CeilingUnixMilliseconds(absolute);
        }

        long sliding = 0;
        if (SlidingExpiration is { } window)
        {
            if (window <= TimeSpan.Zero)
            {
                throw new ArgumentOutOfRangeException(nameof(SlidingExpiration), window, "The sliding expiration value must be positive.");
            }

            sliding = Math.Max(1, (long)window.TotalMilliseconds);
        }

        return (expiresAt, sliding);
    }
#pragma warning restore CA2208

    // Rounded up: truncating would turn an expiry less than a millisecond away into "now", which the silo refuses.
    private static long CeilingUnixMilliseconds(DateTimeOffset time)
    {
        var milliseconds = time.ToUnixTimeMilliseconds();
        return (time.UtcTicks - DateTimeOffset.UnixEpoch.UtcTicks) % TimeSpan.TicksPerMillisecond == 0 ? milliseconds : milliseconds + 1;
    }
}
