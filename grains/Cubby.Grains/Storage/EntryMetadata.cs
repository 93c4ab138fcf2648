using System.Runtime.InteropServices;
using Cubby.Sharding;

namespace Cubby.Grains.Storage;

/// <summary>
/// Everything a store keeps about an entry besides its key and value. Times are Unix milliseconds; 0 means "none".
/// Packed to 4 bytes so the block header's own fields fill what would be padding after <see cref="Kind"/>: a header
/// stays 56 bytes; in a block the 8-byte fields are still 8-byte aligned.
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 4)]
internal struct EntryMetadata
{
    /// <summary>When the entry expires (already capped by <see cref="AbsoluteDeadline"/>), or 0 for never.</summary>
    public long ExpiresAt;

    /// <summary>The sliding window renewed by reads, or 0 when the entry does not slide.</summary>
    public long SlidingWindow;

    /// <summary>The latest moment a sliding entry may live to, or 0 for no cap.</summary>
    public long AbsoluteDeadline;

    /// <summary>Flags the writer attached (see <see cref="CacheEntryFlags"/>).</summary>
    public uint Flags;

    /// <summary>Coarse last-access clock (seconds) for approximate LRU eviction.</summary>
    public uint LastAccess;

    /// <summary>What the value holds: a string, or an encoded hash.</summary>
    public EntryKind Kind;

    public readonly bool HasExpiry => ExpiresAt != 0;

    public readonly bool IsExpiredAt(long now) => ExpiresAt != 0 && ExpiresAt <= now;

    /// <summary>Milliseconds left to live, or -1 when the entry never expires.</summary>
    public readonly long TimeToLive(long now) => ExpiresAt == 0 ? -1 : Math.Max(0, ExpiresAt - now);

    /// <summary>Renews a sliding window from <paramref name="now"/>, never past the absolute deadline.</summary>
    public void Slide(long now)
    {
        if (SlidingWindow != 0)
        {
            ExpiresAt = Cap(now + SlidingWindow, AbsoluteDeadline);
        }
    }

    /// <summary>
    /// Whether a renewal that moved the deadline from <paramref name="before"/> to <see cref="ExpiresAt"/> crossed into
    /// a later half of a window, counting halves from the epoch: true at most about twice per window however often the
    /// entry is read, and a deadline last told to a replica at such a crossing is less than half a window behind.
    /// </summary>
    public readonly bool CrossedHalfWindow(long before)
    {
        var half = Math.Max(1, SlidingWindow / 2);
        return ExpiresAt / half != before / half;
    }

    /// <summary>Replaces every expiry setting with a plain absolute one (as Redis EXPIRE does).</summary>
    public void SetAbsolute(long expiresAt)
    {
        ExpiresAt = expiresAt;
        SlidingWindow = 0;
        AbsoluteDeadline = 0;
    }

    public static EntryMetadata Create(in ExpirySpec expiry, uint flags, long now)
    {
        var metadata = new EntryMetadata { Flags = flags, LastAccess = Clock(now) };
        if (expiry.SlidingWindow > 0)
        {
            metadata.SlidingWindow = expiry.SlidingWindow;
            metadata.AbsoluteDeadline = expiry.ExpiresAt;
            metadata.ExpiresAt = Cap(now + expiry.SlidingWindow, expiry.ExpiresAt);
        }
        else
        {
            metadata.ExpiresAt = expiry.ExpiresAt;
        }

        return metadata;
    }

    public static uint Clock(long now) => (uint)(now / 1000);

    private static long Cap(long expiresAt, long deadline) => deadline != 0 && deadline < expiresAt ? deadline : expiresAt;
}
