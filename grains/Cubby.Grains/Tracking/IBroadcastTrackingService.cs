using Orleans.Services;

namespace Cubby.Grains.Tracking;

/// <summary>
/// Where a silo with BCAST tracking connections tells every silo holding shards which key prefixes to send it: an Orleans
/// grain service on every silo that calls <c>AddCubby</c>.
/// </summary>
[Alias("cubby.broadcast-tracking")]
internal interface IBroadcastTrackingService : IGrainService
{
    /// <summary>
    /// From now on, every change of a key with one of <paramref name="prefixes"/> on this silo's shards is sent to
    /// <paramref name="door"/>; null: none. <paramref name="catchingUp"/>: this silo may have changed keys before it
    /// knew, so the door is told every key changed.
    /// </summary>
    [Alias("listen")]
    Task Listen(SiloAddress door, byte[][]? prefixes, bool catchingUp);
}
