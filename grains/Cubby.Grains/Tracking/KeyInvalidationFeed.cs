using Cubby.Sharding;

namespace Cubby.Grains.Tracking;

/// <summary>
/// The invalidations meant for this silo's own tracking readers: keys that connections of its RESP front door read
/// (<c>CLIENT TRACKING</c>) and that changed, on this silo's shards or on another's. Shards here feed it directly; shards
/// elsewhere send their batches to this silo's <c>KeyInvalidationListener</c> grain service, which feeds it. A host that
/// serves RESP listens to it (<see cref="DoorTracking.Listen"/>); on a silo without a front door no reader is ever
/// registered here, and nothing is fed.
/// </summary>
internal sealed class KeyInvalidationFeed
{
    private Action<KeyInvalidation[]>? _listener;

    /// <summary>
    /// Hands every batch from now on to <paramref name="listener"/>, in the order each sending silo made its changes.
    /// It runs on the sender's thread and must not block.
    /// </summary>
    /// <param name="listener">Tells the connections that read the batch's keys.</param>
    /// <exception cref="InvalidOperationException">The feed already has a listener: a silo has one front door.</exception>
    public void Listen(Action<KeyInvalidation[]> listener)
    {
        ArgumentNullException.ThrowIfNull(listener);
        if (Interlocked.CompareExchange(ref _listener, listener, null) is not null)
        {
            throw new InvalidOperationException("This silo's key invalidations already have a listener.");
        }
    }

    /// <summary>Tells the listener of <paramref name="batch"/>; without one no connection here reads keys, and it is dropped.</summary>
    public void Publish(KeyInvalidation[] batch) => Volatile.Read(ref _listener)?.Invoke(batch);
}
