using Cubby.Grains.Messaging;
using Cubby.Sharding;
using Microsoft.Extensions.Logging;

namespace Cubby.Grains.Tracking;

/// <summary>
/// The link to a client's near cache. Invalidations are numbered as they are queued, and each batch carries the number
/// of its last, so the reader knows, when it renews its lease (<see cref="Lease"/>), whether it has all of them. A batch
/// the reader does not take is not sent again: the link takes a new <see cref="NearCacheLease.Incarnation"/> instead,
/// and the reader, told so by its next renewal, drops everything it read through this silo.
/// </summary>
internal sealed class NearCacheLink : ReaderLink
{
    /// <summary>How long a reader may go unheard (no renewal, no read) before its number may go to another.</summary>
    private static readonly TimeSpan GoneAfter = TimeSpan.FromMinutes(1);


    private readonly ReadTracking _owner;
    private readonly SerialBatches<(long Number, KeyInvalidation Invalidation)> _batches;
    private readonly Lock _gate = new();
    private long _posted;
    private long _incarnation;
    private long _heardAt;

    public NearCacheLink(ReadTracking owner, INearCacheReader reader)
    {
        (_owner, Reader) = (owner, reader);
        _batches = new(SendAsync);
        _incarnation = owner.NewIncarnation();
        Heard();
    }

    public INearCacheReader Reader { get; }

    public override bool Idle => _batches.Idle;

    public override bool Gone => _owner.Time.GetElapsedTime(Volatile.Read(ref _heardAt)) > GoneAfter;

    /// <summary>What the reader is told when it renews: which link this is, and how many invalidations it has had.</summary>
    public NearCacheLease Lease
    {
        get
        {
            lock (_gate)
            {
                return new NearCacheLease(_incarnation, _posted);
            }
        }
    }

    /// <summary>The reader renewed its lease or sent a read.</summary>
    public void Heard() => Volatile.Write(ref _heardAt, _owner.Time.GetTimestamp());

    public override void Enqueue(KeyInvalidation invalidation)
    {
        // Numbered and queued together, so the queue holds them in the order of their numbers.
        lock (_gate)
        {
            var number = ++_posted;
            if (_batches.Count >= MaxQueued)
            {
                _batches.Replace((number, KeyInvalidation.Everything));
            }
            else
            {
                _batches.Post((number, invalidation));
            }
        }
    }

    private async Task SendAsync(List<(long Number, KeyInvalidation Invalidation)> batch)
    {
        try
        {
            await Reader.Invalidated(batch[^1].Number, batch.ConvertAll(static item => item.Invalidation).ToArray()).WaitAsync(SendTimeout).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            lock (_gate)
            {
                _incarnation = _owner.NewIncarnation();
            }

            ReadTracking.Log.NearCacheUnreachable(_owner.Logger, exception, Reader.GetGrainId());
        }
    }
}
