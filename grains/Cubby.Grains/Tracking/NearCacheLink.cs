using Cubby.Grains.Messaging;
using Cubby.Sharding;
using Cubby.Text;
using Microsoft.Extensions.Logging;

namespace Cubby.Grains.Tracking;

/// <summary>
/// The link to a client's near cache. Invalidations are numbered as they are queued, and each batch carries the number
/// of its last, so the reader knows, when it renews its lease (<see cref="Renew"/>), whether it has all of them. A batch
/// the reader does not take is not sent again: the link takes a new <see cref="NearCacheLease.Incarnation"/> instead,
/// and the reader, told so by its next renewal, drops everything it read through this silo.
/// </summary>
/// <remarks>
/// A reader may take small values with the changes of keys it holds (<see cref="NearCacheTerms.UpdatesUpTo"/>), and
/// stays tracked for them. A key it no longer held when its value came (evicted there) is sent no value on its next
/// change, only the bare invalidation that ends its tracking: a key read once is sent at most one value it did not want.
/// </remarks>
/// <remarks>
/// A change is answered once the reader took its invalidation (<see cref="WhenToldAsync"/>), or, when it cannot take it
/// (stalled, unreachable), once every lease this silo gave it before the change has run out: past that, the reader serves
/// nothing it read before the change, since a lease is renewed only when every invalidation queued by then was taken.
/// </remarks>
internal sealed class NearCacheLink : ReaderLink
{
    /// <summary>How long a reader may go unheard (no renewal, no read) before its number may go to another.</summary>
    private static readonly TimeSpan GoneAfter = TimeSpan.FromMinutes(1);

    private readonly ReadTracking _owner;
    private readonly SerialBatches<(long Number, KeyInvalidation Invalidation)> _batches;
    private readonly Lock _gate = new();
    private readonly HashSet<byte[]> _refused = new(ByteStringComparer.Instance);
    private TaskCompletionSource _settled = new();
    private ITimer? _leaseTimer;
    private long _leaseTimerDue = long.MaxValue;
    private long _posted;
    private long _taken;
    private long _lost;
    private long _leasesEndAt;
    private long _incarnation;
    private long _heardAt;
    private long _ownChanges;
    private int _updatesUpTo;
    private int _refusedCount;
    private bool _changesWait;
    private bool _released;

    public NearCacheLink(ReadTracking owner, INearCacheReader reader)
    {
        (_owner, Reader) = (owner, reader);
        _batches = new(SendAsync);
        _incarnation = owner.NewIncarnation();
        _leasesEndAt = owner.Time.GetTimestamp();
        Heard();
    }

    public INearCacheReader Reader { get; }

    public override bool Idle => _batches.Idle;

    /// <summary>Gone: released by its app, or unheard for <see cref="GoneAfter"/>.</summary>
    public override bool Gone => Volatile.Read(ref _released) || _owner.Time.GetElapsedTime(Volatile.Read(ref _heardAt)) > GoneAfter;

    /// <summary>Whether the reader takes values with the changes of keys it holds (<see cref="NearCacheTerms.UpdatesUpTo"/>).</summary>
    public bool TakesUpdates => Volatile.Read(ref _updatesUpTo) > 0;

    /// <summary>The reader read through this link; it is not gone.</summary>
    public void Heard() => Volatile.Write(ref _heardAt, _owner.Time.GetTimestamp());

    /// <summary>
    /// The reader renews its lease on <paramref name="terms"/>: what it is told (which link this is, and how many
    /// invalidations it has had), and, from now on, when the lease it may take from that answer ends at the latest, and
    /// whether changes wait for it.
    /// </summary>
    public NearCacheLease Renew(NearCacheTerms terms)
    {
        var now = _owner.Time.GetTimestamp();
        Heard();
        lock (_gate)
        {
            // Before its first renewal the reader serves nothing, and it takes no lease without every invalidation
            // queued by then: changes made before this one need not have waited for it.
            _changesWait = terms.ChangesWait && !_released;
            Volatile.Write(ref _updatesUpTo, Math.Max(0, terms.UpdatesUpTo));
            _owner.OfferedUpdates(terms.UpdatesUpTo);

            // The reader counts its lease from before it sent the renewal, so it ends before this bound.
            _leasesEndAt = Math.Max(_leasesEndAt, now + (long)(terms.Lease.TotalSeconds * _owner.Time.TimestampFrequency));
            return new NearCacheLease(_incarnation, _posted, terms.Lease);
        }
    }

    /// <summary>
    /// The reader stopped serving what it read through this link (its app is stopping): no change waits for it or is
    /// sent to it any more, the keys it read stop tracking it at their next change, and its number is free once nothing
    /// is on its way to it. Otherwise every change of a key it once read would go on queueing for an app that is gone.
    /// </summary>
    public void Release()
    {
        lock (_gate)
        {
            Volatile.Write(ref _released, true);
            _changesWait = false;
        }

        Wake();
    }

    /// <summary>
    /// The reader reads through this link: a reader that released it (a read racing its app's stop) is tracked again,
    /// so what it keeps is invalidated, though no change waits for it until it renews.
    /// </summary>
    public void Reading()
    {
        if (Volatile.Read(ref _released))
        {
            lock (_gate)
            {
                Volatile.Write(ref _released, false);
            }
        }
    }

    public override long Enqueue(KeyInvalidation invalidation)
    {
        // Numbered and queued together, so the queue holds them in the order of their numbers.
        lock (_gate)
        {
            if (_released)
            {
                return 0;
            }

            var number = ++_posted;
            if (_batches.Count >= MaxQueued)
            {
                _batches.Replace((number, KeyInvalidation.Everything));
            }
            else
            {
                _batches.Post((number, invalidation));
            }

            return _changesWait ? number : 0;
        }
    }

    /// <summary>
    /// Whether this change of <paramref name="key"/> goes to the reader with <paramref name="update"/>, its new entry:
    /// there is one, the reader takes values that large, and it did not refuse the key's last value. A refusal is
    /// forgotten at the key's next change, whatever it is.
    /// </summary>
    public bool Takes(ReadOnlySpan<byte> key, ShardEntry? update)
    {
        if (Volatile.Read(ref _released))
        {
            return false;
        }

        var refused = false;
        if (Volatile.Read(ref _refusedCount) > 0)
        {
            lock (_gate)
            {
                refused = _refused.GetAlternateLookup<ReadOnlySpan<byte>>().Remove(key);
                _refusedCount = _refused.Count;
            }
        }

        return !refused && update is not null && update.Value.Length <= Volatile.Read(ref _updatesUpTo);
    }

    /// <summary>
    /// Where the reader's own change of a key it holds stands on this link when its write is answered with the new entry
    /// instead of sent: after the last invalidation queued so far, and after its earlier own changes. Null when changes
    /// do not wait for the reader, which then drops what it wrote once answered, and is sent the change as any other.
    /// </summary>
    public NearCachePosition? OwnChangeAt()
    {
        lock (_gate)
        {
            return _changesWait ? new NearCachePosition(_posted, ++_ownChanges) : null;
        }
    }

    /// <summary>
    /// Completes once the reader took invalidation <paramref name="number"/> and every one before it, or, failing that,
    /// once every lease given to it before that invalidation was queued has ended.
    /// </summary>
    public ValueTask WhenToldAsync(long number)
    {
        Task settled;
        long leasesEndAt;
        lock (_gate)
        {
            leasesEndAt = _leasesEndAt;
            if (!Waits(number, leasesEndAt, out settled))
            {
                return ValueTask.CompletedTask;
            }
        }

        return WaitAsync(number, leasesEndAt, settled);
    }

    /// <summary>Whether the reader took <paramref name="number"/>: a later batch it took counts only when none between was lost.</summary>
    public bool Told(long number) => number <= Volatile.Read(ref _taken) && number > Volatile.Read(ref _lost);

    private async ValueTask WaitAsync(long number, long leasesEndAt, Task settled)
    {
        do
        {
            await settled.ConfigureAwait(false);
        }
        while (StillWaits(number, leasesEndAt, out settled));
    }

    private bool StillWaits(long number, long leasesEndAt, out Task settled)
    {
        lock (_gate)
        {
            return Waits(number, leasesEndAt, out settled);
        }
    }

    /// <summary>
    /// Whether a change waits yet for invalidation <paramref name="number"/>, given when the leases before it end; if so,
    /// <paramref name="settled"/> completes at the next batch settled or the leases' end, to look again. Under the gate.
    /// </summary>
    private bool Waits(long number, long leasesEndAt, out Task settled)
    {
        settled = _settled.Task;
        var now = _owner.Time.GetTimestamp();
        if (Told(number) || now >= leasesEndAt || _released)
        {
            return false;
        }

        if (leasesEndAt < _leaseTimerDue)
        {
            // One timer for the link, not one per change: it only fires when a reader stalls past its lease.
            _leaseTimer ??= _owner.Time.CreateTimer(static link => ((NearCacheLink)link!).LeasesEnded(), this, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
            _leaseTimerDue = leasesEndAt;
            _leaseTimer.Change(TimeSpan.FromSeconds((double)(leasesEndAt - now) / _owner.Time.TimestampFrequency), Timeout.InfiniteTimeSpan);
        }

        return true;
    }

    private void LeasesEnded()
    {
        lock (_gate)
        {
            _leaseTimerDue = long.MaxValue;
        }

        Wake();
    }

    /// <summary>Has every change waiting on this link look again; their continuations run here, not through the pool.</summary>
    private void Wake()
    {
        TaskCompletionSource settled;
        lock (_gate)
        {
            settled = _settled;
            _settled = new TaskCompletionSource();
        }

        settled.SetResult();
    }

    private async Task SendAsync(List<(long Number, KeyInvalidation Invalidation)> batch)
    {
        var last = batch[^1].Number;
        try
        {
            var refused = await Reader.Invalidated(last, batch.ConvertAll(static item => item.Invalidation).ToArray()).WaitAsync(SendTimeout).ConfigureAwait(false);
            Refuse(refused);
            Settle(last, taken: true);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            Settle(last, taken: false);
            ReadTracking.Log.NearCacheUnreachable(_owner.Logger, exception, Reader.GetGrainId());
        }
    }

    /// <summary>The reader did not keep the values sent for <paramref name="keys"/>: their next changes send it none.</summary>
    private void Refuse(byte[][]? keys)
    {
        if (keys is not { Length: > 0 })
        {
            return;
        }

        lock (_gate)
        {
            // A refusal lasts until the key's next change; keys forgotten otherwise (a shard flushed or moved) would
            // stay, so past a bound they all go, costing at most one more unwanted value each.
            if (_refused.Count + keys.Length > MaxQueued)
            {
                _refused.Clear();
            }

            _refused.UnionWith(keys);
            _refusedCount = _refused.Count;
        }
    }

    /// <summary>
    /// Invalidations up to <paramref name="last"/> were <paramref name="taken"/> or lost: the changes waiting for them
    /// are answered, or left to wait for the reader's leases to end.
    /// </summary>
    private void Settle(long last, bool taken)
    {
        lock (_gate)
        {
            if (taken)
            {
                Volatile.Write(ref _taken, last);
            }
            else
            {
                Volatile.Write(ref _lost, last);
                _incarnation = _owner.NewIncarnation();
            }
        }

        Wake();
    }
}
