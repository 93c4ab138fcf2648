using Cubby.Sharding;

namespace Cubby.Client.NearCaching;

/// <summary>
/// This client's side of one silo's link to its near cache: the reads that silo tracked, valid while the link's
/// <see cref="Epoch"/> is the one they were read under and its lease (<see cref="ValidUntil"/>) runs. The lease is
/// extended by a renewal only when the client has every invalidation the silo had queued when it answered; a silo
/// that forgot the client (a new incarnation) or left ends the epoch.
/// </summary>
internal sealed class TrackerLink(SiloAddress gateway, NearCache cache) : INearCacheReader
{
    private readonly Lock _gate = new();
    private long _epoch;
    private long _validUntil;
    private long _incarnation;
    private long _received;
    private int _renewing;

    /// <summary>The silo's gateway address: where its tracked reads and renewals go.</summary>
    public SiloAddress Gateway { get; } = gateway;

    /// <summary>The silo's batch service, where renewals go; set by the first renewal.</summary>
    public IShardBatchService? Service { get; set; }

    /// <summary>The Orleans reference the silo calls; set once the client created it.</summary>
    public INearCacheReader Reference { get; set; } = null!;

    public long Epoch => Volatile.Read(ref _epoch);

    /// <summary>Until when (<see cref="NearCacheClock"/> milliseconds) what this link tracked may be served.</summary>
    public long ValidUntil => Volatile.Read(ref _validUntil);

    public Task<byte[][]?> Invalidated(long sequence, KeyInvalidation[] batch)
    {
        // Applied and counted together: a renewal that finds it counted finds its keys dropped, and a read begun after
        // it counted reads what the batch's changes left (see NearCache.BeginFill).
        byte[][]? refused;
        lock (_gate)
        {
            refused = cache.Apply(this, batch, sequence);
            Volatile.Write(ref _received, Math.Max(_received, sequence));
        }

        return Task.FromResult(refused);
    }

    /// <summary>The number of the last invalidation taken on this link (or that the silo said it had sent, as it began anew).</summary>
    public long Received => Volatile.Read(ref _received);

    /// <summary>
    /// This client wrote <paramref name="key"/>, and the silo answered with its new entry in place of sending it on this
    /// link, at <paramref name="at"/>: it replaces the copy read through this link unless that copy stands later.
    /// </summary>
    public void KeepOwnWrite(string key, int slot, ShardEntry entry, NearCachePosition at)
    {
        // Under the gate, so no batch is applied between looking at the copy and replacing it.
        lock (_gate)
        {
            cache.Replace(this, key, slot, entry, at);
        }
    }

    /// <summary>Drops everything this link tracked.</summary>
    public void EndEpoch()
    {
        Interlocked.Increment(ref _epoch);
        cache.Ended();
    }

    public bool TryStartRenewal() => Interlocked.CompareExchange(ref _renewing, 1, 0) == 0;

    /// <summary>
    /// The silo answered a renewal sent at <paramref name="sentAt"/> with <paramref name="lease"/>: the lease runs
    /// <paramref name="maxStaleness"/> past the send, or what the silo granted when that is shorter
    /// (<see cref="NearCacheLease.Lasts"/>), when nothing the silo had queued is missing; a new incarnation ends
    /// the epoch first, as the silo may not tell this client of what it read under the old one.
    /// </summary>
    public void Renewed(NearCacheLease lease, long sentAt, long maxStaleness)
    {
        lock (_gate)
        {
            if (lease.Incarnation != _incarnation)
            {
                // Counted from the new incarnation's numbers: a silo started again at this gateway numbers from 1, and
                // a count kept from before would let a lease through without its invalidations, and keep copies (placed
                // by that count) over the changes sent after them.
                // The count before the epoch: a read that takes the new epoch takes the new count too.
                Volatile.Write(ref _received, lease.Posted);
                EndEpoch();
                _incarnation = lease.Incarnation;
            }

            if (_received >= lease.Posted)
            {
                var lasts = lease.Lasts is { } granted ? Math.Min(maxStaleness, (long)granted.TotalMilliseconds) : maxStaleness;
                Volatile.Write(ref _validUntil, sentAt + lasts);
            }
        }

        Volatile.Write(ref _renewing, 0);
    }

    public void RenewalFailed() => Volatile.Write(ref _renewing, 0);
}
