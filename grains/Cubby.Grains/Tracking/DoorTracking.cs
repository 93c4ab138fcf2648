using Cubby.Sharding;

namespace Cubby.Grains.Tracking;

/// <summary>
/// What a RESP front door's <c>CLIENT TRACKING</c> needs of the cluster's shards: the invalidations of the keys its
/// connections read, the changes of keys under the prefixes its BCAST connections listen to, and FLUSHALL's word to the
/// other silos' doors. <c>AddCubby</c> registers it on every silo holding shards.
/// </summary>
public sealed class DoorTracking
{
    private readonly KeyInvalidationFeed _feed;
    private readonly BroadcastPublisher _broadcasts;
    private readonly ReadTracking _tracking;

    internal DoorTracking(KeyInvalidationFeed feed, BroadcastPublisher broadcasts, ReadTracking tracking) =>
        (_feed, _broadcasts, _tracking) = (feed, broadcasts, tracking);

    /// <summary>
    /// Hands every batch of invalidations meant for this silo's tracking connections to <paramref name="listener"/>,
    /// from now on, in the order each sending silo made its changes. It runs on the sender's thread and must not block.
    /// </summary>
    /// <param name="listener">Tells the connections that read the batch's keys.</param>
    /// <exception cref="InvalidOperationException">There is a listener already: a silo has one front door.</exception>
    public void Listen(Action<KeyInvalidation[]> listener) => _feed.Listen(listener);

    /// <summary>
    /// Makes every active silo, and each that joins later, send this door the changes of keys under
    /// <paramref name="prefixes"/> (an empty prefix: every key; null: none any more), as BCAST connections hear them.
    /// </summary>
    /// <param name="prefixes">The union of the prefixes this silo's BCAST connections listen to.</param>
    /// <returns>Done once every silo took them or did not answer within 5 s.</returns>
    public Task BroadcastAsync(byte[][]? prefixes) => _broadcasts.PublishAsync(prefixes);

    /// <summary>Tells the tracking connections of <paramref name="silo"/> that every key changed (FLUSHALL).</summary>
    /// <param name="silo">Another silo with a front door.</param>
    /// <returns>Done once the silo took it.</returns>
    public Task TellEverythingAsync(SiloAddress silo) => _tracking.TellEverythingAsync(silo);
}
