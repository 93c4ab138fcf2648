using System.Collections.Concurrent;
using System.Text;
using Cubby.Sharding;
using Microsoft.Extensions.Caching.Memory;

namespace Cubby.Client.NearCaching;

/// <summary>
/// Values this client read, kept in a <see cref="MemoryCache"/> bounded in bytes and served while nothing says they
/// changed. What can say so: an invalidation from the silo that tracked the read (a key, a shard, or everything that
/// silo tracked), this client's own write of the key, the silo's lease running out, or the entry's expiry.
/// </summary>
/// <remarks>
/// A read's reply and the invalidation of its key travel by different paths, so either may come first. A fill takes a
/// <see cref="FillTicket"/> before its read is sent: the epochs of its link and shard, and the count of its key's stripe,
/// which every invalidation of a key in that stripe raises. The value is kept only if none of them moved by the time it
/// is stored, and the stripe is checked again after storing, so an invalidation that runs in between finds the entry or
/// makes the fill drop it.
/// </remarks>
internal sealed class NearCache : IDisposable
{
    private const int StripeCount = 4096;

    private readonly MemoryCache _entries;
    private readonly long[] _slotEpochs;
    private readonly int[] _stripes = new int[StripeCount];
    private readonly ConcurrentDictionary<SiloAddress, TrackerLink> _links = new();
    private readonly Func<SiloAddress, TrackerLink> _newLink;
    private readonly TimeProvider _time;
    private readonly NearCacheMetrics _metrics;

    public NearCache(NearCacheOptions options, int slotCount, TimeProvider time, NearCacheMetrics metrics, Func<TrackerLink, INearCacheReader> reference)
    {
        _entries = new MemoryCache(new MemoryCacheOptions { SizeLimit = options.MaxBytes, TrackStatistics = true });
        _slotEpochs = new long[slotCount];
        _time = time;
        _metrics = metrics;
        MaxStaleness = (long)(options.MaxStaleness.TotalSeconds * time.TimestampFrequency);
        _newLink = gateway =>
        {
            var link = new TrackerLink(gateway, this);
            link.Reference = reference(link);
            return link;
        };
        metrics.Observe(this);
    }

    /// <summary><see cref="NearCacheOptions.MaxStaleness"/> in timestamp ticks.</summary>
    public long MaxStaleness { get; }

    /// <summary>Bytes kept, as charged against the bound.</summary>
    public long Bytes => _entries.GetCurrentStatistics()?.CurrentEstimatedSize ?? 0;

    /// <summary>Entries kept, some of which may no longer be servable.</summary>
    public long Count => _entries.Count;

    /// <summary>The links to the silos reads were tracked by so far.</summary>
    public ICollection<TrackerLink> Links => _links.Values;

    public TimeProvider Time => _time;

    /// <summary>The counts behind the instruments, for tests and diagnostics.</summary>
    public NearCacheMetrics Metrics => _metrics;

    /// <summary>The link to the silo at <paramref name="gateway"/>, made on first use.</summary>
    public TrackerLink LinkTo(SiloAddress gateway) => _links.GetOrAdd(gateway, _newLink);

    /// <summary>The kept entry of <paramref name="key"/> when it may be served now; a hit or a miss is counted.</summary>
    public bool TryGet(string key, out NearCacheEntry entry)
    {
        if (_entries.TryGetValue(key, out var found) && found is NearCacheEntry kept)
        {
            var now = _time.GetTimestamp();
            if (!kept.Dropped
                && kept.Link.Epoch == kept.LinkEpoch
                && Volatile.Read(ref _slotEpochs[kept.Slot]) == kept.SlotEpoch
                && now < kept.Link.ValidUntil
                && (kept.ExpiresAt == 0 || now < kept.ExpiresAt))
            {
                _metrics.Hit();
                entry = kept;
                return true;
            }

            if (kept.Dropped || kept.Link.Epoch != kept.LinkEpoch || Volatile.Read(ref _slotEpochs[kept.Slot]) != kept.SlotEpoch || (kept.ExpiresAt != 0 && now >= kept.ExpiresAt))
            {
                // Never servable again; one whose lease ran out may be once the lease is renewed.
                Remove(key, kept);
            }
        }

        _metrics.Miss();
        entry = null!;
        return false;
    }

    /// <summary>Taken before a tracked read of <paramref name="key"/> is sent through <paramref name="link"/>.</summary>
    public FillTicket BeginFill(string key, int slot, TrackerLink link) =>
        new(link, link.Epoch, Volatile.Read(ref _slotEpochs[slot]), StripeOf(key), Volatile.Read(ref _stripes[StripeOf(key)]), _time.GetTimestamp());

    /// <summary>Keeps what the tracked read of <paramref name="key"/> returned, unless an invalidation came since its ticket.</summary>
    public NearCacheEntry? CompleteFill(string key, int slot, in FillTicket ticket, ShardEntry read, byte[] value)
    {
        if (ticket.Link.Epoch != ticket.LinkEpoch
            || Volatile.Read(ref _slotEpochs[slot]) != ticket.SlotEpoch
            || Volatile.Read(ref _stripes[ticket.Stripe]) != ticket.StripeCount)
        {
            return null;
        }

        var frequency = _time.TimestampFrequency;
        var window = read.SlidingWindow * frequency / 1000;
        var entry = new NearCacheEntry(value, read.Flags, slot, ticket.Link, ticket.LinkEpoch, ticket.SlotEpoch)
        {
            // Counted from when the read was sent, so it never outlives the entry on the silo.
            ExpiresAt = read.TimeToLive < 0 ? 0 : ticket.SentAt + (read.TimeToLive * frequency / 1000),
            SlidingWindow = window,
            FixedExpiry = window == 0 || read.TimeToLive < read.SlidingWindow,
            RenewedAt = ticket.SentAt,
        };

        using (var cached = _entries.CreateEntry(key))
        {
            cached.Value = entry;
            cached.Size = NearCacheEntry.SizeOf(key, value);
        }

        if (Volatile.Read(ref _stripes[ticket.Stripe]) != ticket.StripeCount)
        {
            Remove(key, entry);
            return null;
        }

        return entry;
    }

    /// <summary>Drops <paramref name="key"/> and spoils fills of it under way: this client writes or removes it.</summary>
    public void Drop(string key)
    {
        Interlocked.Increment(ref _stripes[StripeOf(key)]);
        if (_entries.TryGetValue(key, out var found) && found is NearCacheEntry kept)
        {
            Remove(key, kept);
        }
    }

    /// <summary>Applies invalidations from the silo of <paramref name="link"/>.</summary>
    public void Apply(TrackerLink link, KeyInvalidation[] batch)
    {
        foreach (var invalidation in batch)
        {
            if (invalidation.Slot < 0)
            {
                link.EndEpoch();
                _metrics.Invalidated(1);
            }
            else if (invalidation.Keys is null)
            {
                if (invalidation.Slot < _slotEpochs.Length)
                {
                    Interlocked.Increment(ref _slotEpochs[invalidation.Slot]);
                    _metrics.Invalidated(1);
                }
            }
            else
            {
                foreach (var key in invalidation.Keys)
                {
                    Drop(Encoding.UTF8.GetString(key));
                }

                _metrics.Invalidated(invalidation.Keys.Length);
            }
        }
    }

    public void Dispose()
    {
        _entries.Dispose();
        _metrics.Dispose();
    }

    private void Remove(string key, NearCacheEntry entry)
    {
        entry.Drop();
        if (_entries.TryGetValue(key, out var current) && ReferenceEquals(current, entry))
        {
            _entries.Remove(key);
        }
    }

    private static int StripeOf(string key) => (int)((uint)string.GetHashCode(key) % StripeCount);
}

/// <summary>What a fill saw before its read was sent (see <see cref="NearCache.BeginFill"/>).</summary>
internal readonly record struct FillTicket(TrackerLink Link, long LinkEpoch, long SlotEpoch, int Stripe, int StripeCount, long SentAt);
