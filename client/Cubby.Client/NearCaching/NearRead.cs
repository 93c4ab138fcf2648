using Cubby.Sharding;

namespace Cubby.Client.NearCaching;

/// <summary>A value as read through the near cache, kept or not: decompressed, with its flags and when it expires.</summary>
/// <param name="Value">The value; shared with the near cache when kept.</param>
/// <param name="Flags">The flags it was stored with.</param>
/// <param name="ExpiresAt">When it expires (<see cref="NearCacheClock"/> milliseconds), or 0 for never.</param>
internal readonly record struct NearRead(byte[] Value, CacheEntryFlags Flags, long ExpiresAt)
{
    public static NearRead Of(NearCacheEntry entry) => new(entry.Value, entry.Flags, entry.ExpiresAt);

    public static NearRead Of(string key, ShardEntry entry, NearCacheClock clock, byte[]? value = null) =>
        new(value ?? CubbyClient.ValueOf(key, entry), entry.Flags, entry.TimeToLive < 0 ? 0 : clock.Now + entry.TimeToLive);

    /// <summary>Time left to live now, or null when it never expires.</summary>
    public TimeSpan? TimeToLive(NearCacheClock clock) => ExpiresAt == 0 ? null : TimeSpan.FromMilliseconds(Math.Max(0, ExpiresAt - clock.Now));
}
