using Cubby.Sharding;

namespace Cubby.Client.NearCaching;

/// <summary>
/// A value kept by the near cache, with what it takes to tell whether it may still be served: the link that tracked
/// its read and that link's epoch then, its shard's epoch then, and when it expires here. Times are
/// <see cref="NearCacheClock"/> milliseconds.
/// </summary>
internal sealed class NearCacheEntry(byte[] value, CacheEntryFlags flags, int slot, TrackerLink link, long linkEpoch, long slotEpoch)
{
    private int _renewing;
    private long _expiresAt;
    private long _renewedAt;
    private volatile bool _dropped;

    /// <summary>The value, decompressed. Shared by every hit: callers must not change it.</summary>
    public byte[] Value { get; } = value;

    public CacheEntryFlags Flags { get; } = flags;

    public int Slot { get; } = slot;

    public TrackerLink Link { get; } = link;

    public long LinkEpoch { get; } = linkEpoch;

    public long SlotEpoch { get; } = slotEpoch;

    /// <summary>The bytes charged against <see cref="NearCacheOptions.MaxBytes"/>.</summary>
    public long Size { get; init; }

    /// <summary>The sliding window the silo renews on reads, in milliseconds, or 0.</summary>
    public long SlidingWindow { get; init; }

    /// <summary>Whether the silo's expiry is fixed (no window, or an absolute cap closer than the window).</summary>
    public bool FixedExpiry { get; init; }

    /// <summary>When it has expired on the silo, or 0 for never.</summary>
    public long ExpiresAt
    {
        get => Volatile.Read(ref _expiresAt);
        init => _expiresAt = value;
    }

    /// <summary>When the read or renewal the silo last counted was sent.</summary>
    public long RenewedAt
    {
        get => Volatile.Read(ref _renewedAt);
        init => _renewedAt = value;
    }

    /// <summary>
    /// What a layer over the client made of <see cref="Value"/> (HybridCache's decoded copy), kept with the entry so a
    /// hit does not decode again, and gone with it.
    /// </summary>
    public object? Decoded { get; set; }

    /// <summary>
    /// A value this client is writing over this entry, already decoded by the layer that wrote it: when the shard sends
    /// that value back with the change (a strict near cache takes its own writes), the entry that replaces this one keeps
    /// the writer's bytes and decoding instead of decoding what arrived again.
    /// </summary>
    public IDecodedValue? Writing { get; set; }

    /// <summary>
    /// Where the value stands among what <see cref="Link"/> sent: the invalidation that carried it, this client's own
    /// write, or, for a read, the last invalidation taken before it was sent (it holds that change or a later one).
    /// </summary>
    public NearCachePosition Position { get; init; }

    /// <summary>When a hit last told the eviction policy this entry is in use.</summary>
    public long TouchedAt { get; set; }

    public bool Dropped => _dropped;

    /// <summary>
    /// The entry keeping <paramref name="value"/>, <paramref name="read"/>'s value decompressed, read through
    /// <paramref name="link"/> at epochs <paramref name="linkEpoch"/> and <paramref name="slotEpoch"/>, its time to live
    /// counted from <paramref name="from"/>, standing at <paramref name="position"/> among what the link sent.
    /// </summary>
    public static NearCacheEntry Of(string key, byte[] value, ShardEntry read, int slot, TrackerLink link, long linkEpoch, long slotEpoch, long from, NearCachePosition position) =>
        new(value, read.Flags, slot, link, linkEpoch, slotEpoch)
        {
            Position = position,
            Size = SizeOf(key, value),
            ExpiresAt = read.TimeToLive < 0 ? 0 : from + read.TimeToLive,
            SlidingWindow = read.SlidingWindow,
            FixedExpiry = read.SlidingWindow == 0 || read.TimeToLive < read.SlidingWindow,
            RenewedAt = from,
            TouchedAt = from,
        };

    /// <summary>What an entry is charged: the value, the key's characters, and the two tables' bookkeeping.</summary>
    public static long SizeOf(string key, byte[] value) => value.Length + (key.Length * 2L) + 320;

    public void Drop() => _dropped = true;

    /// <summary>Claims the one renewal in flight for this entry; false when one is already on its way.</summary>
    public bool TryStartRenewal() => Interlocked.CompareExchange(ref _renewing, 1, 0) == 0;

    /// <summary>The silo counted a renewal sent at <paramref name="sentAt"/>; the entry now lives a window past that.</summary>
    public void Renewed(long sentAt)
    {
        Volatile.Write(ref _renewedAt, sentAt);
        Volatile.Write(ref _expiresAt, sentAt + SlidingWindow);
        Volatile.Write(ref _renewing, 0);
    }

    public void RenewalFailed() => Volatile.Write(ref _renewing, 0);
}
