using Cubby.Sharding;

namespace Cubby.Grains.Tracking;

/// <summary>
/// The way to one tracking reader: invalidations queued in the order their changes were made, sent a batch at a time.
/// A reader is a silo whose RESP door has tracking connections (<see cref="SiloReaderLink"/>) or a client's near cache
/// (<see cref="NearCacheLink"/>).
/// </summary>
internal abstract class ReaderLink
{
    /// <summary>Invalidations waiting for one reader past which they collapse into one for every key.</summary>
    protected const int MaxQueued = 100_000;

    /// <summary>How long a batch may take to be taken before the reader counts as unreachable.</summary>
    protected static readonly TimeSpan SendTimeout = TimeSpan.FromSeconds(5);

    /// <summary>Whether nothing is being sent to the reader or waits to be.</summary>
    public abstract bool Idle { get; }

    /// <summary>Whether the reader is gone for good, so its number may go to another once <see cref="Idle"/>.</summary>
    public abstract bool Gone { get; }

    /// <summary>
    /// Queues <paramref name="invalidation"/> behind those before; returns its number when the change that made it must
    /// wait for the reader before it is answered (<see cref="NearCacheLink.WhenToldAsync"/>), else 0.
    /// </summary>
    public abstract long Enqueue(KeyInvalidation invalidation);
}
