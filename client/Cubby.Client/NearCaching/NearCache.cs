using System.Collections.Concurrent;
using System.Text;
using Cubby.Sharding;
using Microsoft.Extensions.Caching.Memory;

namespace Cubby.Client.NearCaching;

/// <summary>
/// Values this client read, served while nothing says they changed. What can say so: an invalidation from the silo
/// that tracked the read (a key, a shard, or everything that silo tracked), this client's own write of the key, the
/// silo's lease running out, or the entry's expiry.
/// </summary>
/// <remarks>
/// <para>
/// A hit is one lookup in a concurrent dictionary. What to evict is decided by a <see cref="MemoryCache"/> bounded in
/// bytes that holds the same entries: it evicts the least recently used past <see cref="NearCacheOptions.MaxBytes"/>,
/// and its eviction removes the entry from the dictionary. A hit tells it the entry is in use at most once a second,
/// rather than paying its bookkeeping on every read.
/// </para>
/// <para>
/// A read's reply and the invalidation of its key travel by different paths, so either may come first. A fill takes a
/// <see cref="FillTicket"/> before its read is sent: the epochs of its link and shard, and the count of its key's
/// stripe, which every invalidation of a key in that stripe raises. The value is kept only if none of them moved by the
/// time it is stored, and the stripe is checked again after storing, so an invalidation that runs in between finds the
/// entry or makes the fill drop it.
/// </para>
/// </remarks>
internal sealed class NearCache : IDisposable
{
    private const int StripeCount = 4096;
    private const long TouchInterval = 1000;

    private readonly ConcurrentDictionary<string, NearCacheEntry> _entries = new();
    private readonly MemoryCache _policy;
    private readonly PostEvictionDelegate _evicted;
    private readonly long[] _slotEpochs;
    private readonly int[] _stripes = new int[StripeCount];
    private readonly ConcurrentDictionary<SiloAddress, TrackerLink> _links = new();
    private readonly Func<SiloAddress, TrackerLink> _newLink;
    private long _bytes;
    private long _tagChanges;

    public NearCache(NearCacheOptions options, int slotCount, TimeProvider time, NearCacheMetrics metrics, Func<TrackerLink, INearCacheReader> reference)
    {
        _policy = new MemoryCache(new MemoryCacheOptions { SizeLimit = options.MaxBytes });
        _evicted = Evicted;
        _slotEpochs = new long[slotCount];
        Clock = new NearCacheClock(time);
        Metrics = metrics;
        MaxStaleness = (long)options.MaxStaleness.TotalMilliseconds;
        Terms = new NearCacheTerms(options.MaxStaleness, options.Coherence == NearCacheCoherence.Strict, options.UpdateMaxBytes);
        _newLink = gateway =>
        {
            var link = new TrackerLink(gateway, this);
            link.Reference = reference(link);
            return link;
        };
        metrics.Observe(this);
    }

    /// <summary><see cref="NearCacheOptions.MaxStaleness"/> in milliseconds.</summary>
    public long MaxStaleness { get; }

    /// <summary>What this cache asks of the silos when it renews its leases.</summary>
    public NearCacheTerms Terms { get; }

    public NearCacheClock Clock { get; }

    /// <summary>The counts behind the instruments, for tests and diagnostics.</summary>
    public NearCacheMetrics Metrics { get; }

    /// <summary>Bytes kept, as charged against the bound.</summary>
    public long Bytes => Volatile.Read(ref _bytes);

    /// <summary>Entries kept, some of which may no longer be servable.</summary>
    public long Count => _entries.Count;

    /// <summary>Called after each batch of invalidations is applied, for measuring how long pushes take.</summary>
    public Action? Applied { get; set; }

    /// <summary>
    /// Counts every drop of a tag's epoch key (<see cref="Tagging.TagEpochs.KeyPrefix"/>) and of a whole shard or link,
    /// each counted once the entries it ends are marked: while the count stays, every kept epoch entry a caller found
    /// servable still is, but for its lease and expiry. Lets a tagged hit check its epochs with one read.
    /// </summary>
    public long TagChanges => Volatile.Read(ref _tagChanges);

    /// <summary>The links to the silos reads were tracked by so far.</summary>
    public ICollection<TrackerLink> Links => _links.Values;

    /// <summary>The link to the silo at <paramref name="gateway"/>, made on first use.</summary>
    public TrackerLink LinkTo(SiloAddress gateway) => _links.GetOrAdd(gateway, _newLink);

    /// <summary>The kept entry of <paramref name="key"/> when it may be served now; a hit or a miss is counted.</summary>
    public bool TryGet(string key, out NearCacheEntry entry)
    {
        if (_entries.TryGetValue(key, out var kept))
        {
            var now = Clock.Approximately;
            var current = IsCurrent(kept, now);
            if (current && Clock.Before(now, kept.Link.ValidUntil))
            {
                if (now - kept.TouchedAt >= TouchInterval)
                {
                    kept.TouchedAt = now;
                    _ = _policy.TryGetValue(key, out _);
                }

                Metrics.Hit();
                entry = kept;
                return true;
            }

            // One whose lease ran out may be served again once the lease is renewed; the others never.
            if (!current)
            {
                Remove(key, kept);
            }
        }

        Metrics.Miss();
        entry = null!;
        return false;
    }

    /// <summary>
    /// Whether an entry a caller held on to (found by <see cref="TryGet"/> before) may still be served: what
    /// <see cref="TryGet"/> decides, without the lookup, and counting nothing.
    /// </summary>
    public bool IsServable(NearCacheEntry kept)
    {
        var now = Clock.Approximately;
        return IsCurrent(kept, now) && Clock.Before(now, kept.Link.ValidUntil);
    }

    /// <summary>
    /// Marks where <paramref name="key"/>'s invalidations stand now, so a caller can tell later whether anything may
    /// have changed it since (<see cref="Unchanged"/>): a drop of the key (or of another in its stripe), or its shard's.
    /// </summary>
    public KeyMark Mark(string key, int slot)
    {
        var stripe = StripeOf(key);
        return new(stripe, Volatile.Read(ref _stripes[stripe]), slot, Volatile.Read(ref _slotEpochs[slot]));
    }

    /// <summary>Whether no invalidation that could concern the key of <paramref name="mark"/> came since it was taken.</summary>
    public bool Unchanged(in KeyMark mark) =>
        Volatile.Read(ref _stripes[mark.Stripe]) == mark.StripeCount && Volatile.Read(ref _slotEpochs[mark.Slot]) == mark.SlotEpoch;

    /// <summary>Taken before a tracked read of <paramref name="key"/> is sent through <paramref name="link"/>.</summary>
    public FillTicket BeginFill(string key, int slot, TrackerLink link)
    {
        var stripe = StripeOf(key);
        return new(link, link.Epoch, Volatile.Read(ref _slotEpochs[slot]), stripe, Volatile.Read(ref _stripes[stripe]), Clock.Now, new NearCachePosition(link.Received, 0));
    }

    /// <summary>Whether nothing invalidated what a fill with <paramref name="ticket"/> reads since it was sent.</summary>
    public bool Unspoiled(in FillTicket ticket, int slot) =>
        ticket.Link.Epoch == ticket.LinkEpoch
        && Volatile.Read(ref _slotEpochs[slot]) == ticket.SlotEpoch
        && Volatile.Read(ref _stripes[ticket.Stripe]) == ticket.StripeCount;

    /// <summary>Keeps what the tracked read of <paramref name="key"/> returned, unless an invalidation came since its ticket.</summary>
    public NearCacheEntry? CompleteFill(string key, int slot, in FillTicket ticket, ShardEntry read, byte[] value)
    {
        if (!Unspoiled(ticket, slot))
        {
            return null;
        }

        // Its time to live is counted from when the read was sent, so it never outlives the entry on the silo.
        var entry = NearCacheEntry.Of(key, value, read, slot, ticket.Link, ticket.LinkEpoch, ticket.SlotEpoch, ticket.SentAt, ticket.Position);
        Keep(key, entry);
        if (Volatile.Read(ref _stripes[ticket.Stripe]) != ticket.StripeCount)
        {
            Remove(key, entry);
            return null;
        }

        return entry;
    }

    /// <summary>
    /// <paramref name="key"/> changed to <paramref name="update"/> on the silo of <paramref name="link"/>, at
    /// <paramref name="position"/> among what that link sent: the kept entry is replaced when it was read through that
    /// link and may still be served (so the link's order puts the new value after the one kept), else dropped; one that
    /// stands later stays. Fills under way are spoiled either way. Returns whether the cache holds the key.
    /// </summary>
    public bool Replace(TrackerLink link, string key, int slot, ShardEntry update, NearCachePosition position)
    {
        var now = Clock.Now;
        var held = _entries.TryGetValue(key, out var kept) && kept.Link == link && IsCurrent(kept, now);
        if (held && kept!.Position > position)
        {
            // This client's own later write, or a read sent after a later change: either holds the newer value. Fills
            // under way may hold an older one.
            Interlocked.Increment(ref _stripes[StripeOf(key)]);
            return true;
        }

        Drop(key);
        if (!held || !TryDecode(key, update, out var value))
        {
            return false;
        }

        // This client's own write coming back: the bytes it sent, decoded as it wrote them, stand for what arrived.
        var written = kept!.Writing is { } writing && writing.Payload.AsSpan().SequenceEqual(value) ? writing : null;

        // Its time to live is counted from its arrival, so it may outlive the silo's entry by the push's transit time.
        var replacing = NearCacheEntry.Of(key, written?.Payload ?? value, update, slot, link, kept.LinkEpoch, kept.SlotEpoch, now, position);
        replacing.Decoded = written;

        Keep(key, replacing);
        Metrics.Updated();
        return true;
    }

    /// <summary>Drops <paramref name="key"/> and spoils fills of it under way: this client writes or removes it.</summary>
    public void Drop(string key)
    {
        Interlocked.Increment(ref _stripes[StripeOf(key)]);
        if (_entries.TryGetValue(key, out var kept))
        {
            Remove(key, kept);
        }

        if (key.StartsWith(Tagging.TagEpochs.KeyPrefix, StringComparison.Ordinal))
        {
            Interlocked.Increment(ref _tagChanges);
        }
    }

    /// <summary>A shard's or a link's entries were all ended (their epoch moved on): counted in <see cref="TagChanges"/>.</summary>
    public void Ended() => Interlocked.Increment(ref _tagChanges);

    /// <summary>
    /// Applies invalidations from the silo of <paramref name="link"/>; returns the keys whose new values were not kept
    /// (this cache no longer held them), or null.
    /// </summary>
    /// <remarks>The batch's invalidations are numbered in a row up to <paramref name="last"/>.</remarks>
    public byte[][]? Apply(TrackerLink link, KeyInvalidation[] batch, long last)
    {
        List<byte[]>? refused = null;
        for (var i = 0; i < batch.Length; i++)
        {
            var invalidation = batch[i];
            if (invalidation.Slot < 0)
            {
                link.EndEpoch();
                Metrics.Invalidated(1);
            }
            else if (invalidation.Keys is null)
            {
                if (invalidation.Slot < _slotEpochs.Length)
                {
                    Interlocked.Increment(ref _slotEpochs[invalidation.Slot]);
                    Ended();
                    Metrics.Invalidated(1);
                }
            }
            else if (invalidation.Update is { } update)
            {
                var key = invalidation.Keys[0];
                if (!Replace(link, Encoding.UTF8.GetString(key), invalidation.Slot, update, new NearCachePosition(last - (batch.Length - 1 - i), 0)))
                {
                    (refused ??= []).Add(key);
                }

                Metrics.Invalidated(1);
            }
            else
            {
                foreach (var key in invalidation.Keys)
                {
                    Drop(Encoding.UTF8.GetString(key));
                }

                Metrics.Invalidated(invalidation.Keys.Length);
            }
        }

        Applied?.Invoke();
        return refused?.ToArray();
    }

    public void Dispose()
    {
        _policy.Dispose();
        Metrics.Dispose();
    }

    /// <summary>Whether nothing ended <paramref name="kept"/>: dropped, its link's or shard's epoch over, or expired.</summary>
    private bool IsCurrent(NearCacheEntry kept, long now) =>
        !kept.Dropped
        && kept.Link.Epoch == kept.LinkEpoch
        && Volatile.Read(ref _slotEpochs[kept.Slot]) == kept.SlotEpoch
        && (kept.ExpiresAt == 0 || Clock.Before(now, kept.ExpiresAt));

    private void Keep(string key, NearCacheEntry entry)
    {
        // In the dictionary first: the policy may evict it at once, and its eviction must find it there.
        _entries[key] = entry;
        Interlocked.Add(ref _bytes, entry.Size);
        using var policy = _policy.CreateEntry(key);
        policy.Value = entry;
        policy.Size = entry.Size;
        policy.RegisterPostEvictionCallback(_evicted);
    }

    private static bool TryDecode(string key, ShardEntry update, out byte[] value)
    {
        try
        {
            value = CubbyClient.ValueOf(key, update);
            return true;
        }
        catch (CubbyException)
        {
            // Dropped instead: the next read meets the same error, where a caller sees it.
            value = [];
            return false;
        }
    }

    private void Remove(string key, NearCacheEntry entry)
    {
        entry.Drop();
        if (_entries.TryRemove(KeyValuePair.Create(key, entry)))
        {
            _policy.Remove(key);
        }
    }

    /// <summary>
    /// The policy let an entry go (evicted for space, replaced, removed): it leaves the dictionary too, unless a newer
    /// one took its place there, so the dictionary never keeps what the policy does not count.
    /// </summary>
    private void Evicted(object key, object? value, EvictionReason reason, object? state)
    {
        if (value is NearCacheEntry entry)
        {
            Interlocked.Add(ref _bytes, -entry.Size);
            entry.Drop();
            _entries.TryRemove(KeyValuePair.Create((string)key, entry));
        }
    }

    private static int StripeOf(string key) => (int)((uint)string.GetHashCode(key) % StripeCount);
}

/// <summary>What a fill saw before its read was sent (see <see cref="NearCache.BeginFill"/>).</summary>
internal readonly record struct FillTicket(TrackerLink Link, long LinkEpoch, long SlotEpoch, int Stripe, int StripeCount, long SentAt, NearCachePosition Position);

/// <summary>Where a key's invalidations stood when a caller looked (see <see cref="NearCache.Mark"/>).</summary>
internal readonly record struct KeyMark(int Stripe, int StripeCount, int Slot, long SlotEpoch);
