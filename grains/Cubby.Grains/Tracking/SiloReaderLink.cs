using Cubby.Grains.Messaging;
using Cubby.Sharding;
using Microsoft.Extensions.Logging;

namespace Cubby.Grains.Tracking;

/// <summary>
/// The link to a silo whose RESP door has tracking connections: one batch at a time, so the door sees changes in the
/// order they were made. A batch that fails is sent again as one invalidation of every key, until the silo is dead.
/// </summary>
internal sealed class SiloReaderLink : ReaderLink
{
    private static readonly TimeSpan RetryPause = TimeSpan.FromMilliseconds(200);

    private readonly ReadTracking _owner;
    private readonly SerialBatches<KeyInvalidation> _batches;

    public SiloReaderLink(ReadTracking owner, SiloAddress silo)
    {
        (_owner, Silo) = (owner, silo);
        _batches = new(SendAsync);
    }

    public SiloAddress Silo { get; }

    public override bool Idle => _batches.Idle;

    public override bool Gone => _owner.Membership.CurrentSnapshot.GetSiloStatus(Silo) == SiloStatus.Dead;

    /// <summary>Queues <paramref name="invalidation"/>; a door's tracking connections are told as Redis tells them, after the change is answered.</summary>
    public override long Enqueue(KeyInvalidation invalidation)
    {
        if (_batches.Count >= MaxQueued)
        {
            _batches.Replace(KeyInvalidation.Everything);
        }
        else
        {
            _batches.Post(invalidation);
        }

        return 0;
    }

    private async Task SendAsync(List<KeyInvalidation> batch)
    {
        try
        {
            if (_owner.LocalFeedFor(Silo) is { } local)
            {
                local.Publish([.. batch]);
                return;
            }

            await _owner.ListenerAt(Silo).Invalidated([.. batch]).WaitAsync(SendTimeout).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            // A dead reader's connections, and what they cached, died with it.
            if (!Gone)
            {
                ReadTracking.Log.ReaderUnreachable(_owner.Logger, exception, Silo);
                await Task.Delay(RetryPause).ConfigureAwait(false);
                _batches.Replace(KeyInvalidation.Everything);
            }
        }
    }
}
