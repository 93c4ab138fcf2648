using Cubby.Grains.Commands;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Orleans.Runtime.Services;

namespace Cubby.Grains.Reports;

/// <summary>Answers <see cref="IShardSiloService"/> for this silo.</summary>
internal sealed class ShardSiloService(GrainId id, global::Orleans.Runtime.Silo silo, ILoggerFactory loggers, IServiceProvider services)
    : GrainService(id, silo, loggers), IShardSiloService
{
    public Task<SiloCard> Describe()
    {
        var catalog = services.GetRequiredService<ShardCatalog>();
        var endpoint = services.GetRequiredService<Hosting.RespFrontDoor>().Endpoint;
        return Task.FromResult(new SiloCard(endpoint, catalog.Count(), catalog.ActiveShards()));
    }
}

/// <summary>Reaches the <see cref="IShardSiloService"/> of a given silo.</summary>
internal sealed class ShardSiloClient(IServiceProvider services) : GrainServiceClient<IShardSiloService>(services)
{
    public IShardSiloService Of(SiloAddress silo) => GetGrainService(silo);
}
