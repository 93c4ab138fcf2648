using Microsoft.Extensions.Logging;
using Orleans.Runtime.Services;

namespace Cubby.Grains.Tracking;

/// <summary>Answers <see cref="IBroadcastTrackingService"/> on this silo: the table its shards' changes are matched against.</summary>
internal sealed class BroadcastTrackingService(GrainId id, global::Orleans.Runtime.Silo silo, ILoggerFactory loggers, ReadTracking tracking)
    : GrainService(id, silo, loggers), IBroadcastTrackingService
{
    public Task Listen(SiloAddress door, byte[][]? prefixes, bool catchingUp)
    {
        ArgumentNullException.ThrowIfNull(door);
        tracking.Listen(door, prefixes, catchingUp);
        return Task.CompletedTask;
    }
}
