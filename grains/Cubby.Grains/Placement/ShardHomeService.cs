using Microsoft.Extensions.Logging;
using Orleans.Runtime.Services;

namespace Cubby.Grains.Placement;

/// <summary>Answers <see cref="IShardHomeService"/> for this silo.</summary>
internal sealed class ShardHomeService(GrainId id, global::Orleans.Runtime.Silo silo, ILoggerFactory loggers, ShardHomes homes)
    : GrainService(id, silo, loggers), IShardHomeService
{
    public Task Departing(SiloAddress silo)
    {
        homes.MarkDeparting(silo);
        return Task.CompletedTask;
    }
}

/// <summary>Reaches the <see cref="IShardHomeService"/> of a given silo.</summary>
internal sealed class ShardHomeServices(IServiceProvider services) : GrainServiceClient<IShardHomeService>(services)
{
    public IShardHomeService Of(SiloAddress silo) => GetGrainService(silo);
}
