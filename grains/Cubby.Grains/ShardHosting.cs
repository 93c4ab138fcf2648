using Cubby.Grains.Commands;
using Cubby.Grains.Placement;
using Cubby.Grains.Storage;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace Cubby.Grains;

/// <summary>Adds the shard grains to an Orleans silo.</summary>
internal static class ShardHosting
{
    /// <summary>
    /// The service key of the clock entries expire by, when it is not the host's <see cref="TimeProvider"/>: tests put
    /// a fake clock here without slowing Orleans' own timers, which run on the host's.
    /// </summary>
    public const string EntryClockKey = "cubby.entries";

    /// <summary>
    /// Registers what shard grains need on this silo: the catalog of shards it holds (and their memory budget), the
    /// placement that puts each shard on its home silo, and the service that sends shards home when the cluster changes.
    /// The host adds a reminder service (the full sweep) and <c>AddDistributedGrainDirectory()</c>, which keeps
    /// migrated shards reachable when a silo stops.
    /// </summary>
    public static ISiloBuilder AddShardGrains(this ISiloBuilder silo, GrainSettings settings, EntryStores? stores = null)
    {
        silo.Services.TryAddSingleton(TimeProvider.System);
        silo.Services.AddSingleton(services => new ShardCatalog(settings, services.GetKeyedService<TimeProvider>(EntryClockKey) ?? services.GetRequiredService<TimeProvider>(), stores));
        silo.Services.AddSingleton(services => new RelayedCommandRunner(services.GetRequiredService<ShardCatalog>(), services.GetService<RespEndpointSource>()));
        silo.Services.AddSingleton<ShardHomes>();
        silo.AddGrainService<ShardHomeService>();
        silo.Services.AddSingleton<ShardHomeServices>();
        silo.Services.AddPlacementDirector<ShardPlacement, ShardPlacementDirector>();
        silo.Services.AddSingleton<ShardRebalancer>();
        silo.Services.AddHostedService(static services => services.GetRequiredService<ShardRebalancer>());
        silo.Services.AddSingleton<ILifecycleParticipant<ISiloLifecycle>>(static services => services.GetRequiredService<ShardRebalancer>());
        return silo;
    }
}
