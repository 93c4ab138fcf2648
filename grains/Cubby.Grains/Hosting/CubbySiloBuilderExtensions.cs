using Cubby.Grains.Commands;
using Cubby.Grains.Placement;
using Cubby.Grains.Reports;
using Cubby.Grains.Storage;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Orleans.Configuration;

namespace Cubby.Grains.Hosting;

/// <summary>Hosts Cubby's shards in an Orleans silo: Cubby's own, or one a team already runs.</summary>
public static class CubbySiloBuilderExtensions
{
    /// <summary>The largest Orleans message: a migrating shard travels in one, and shards of 100 MiB and more exist.</summary>
    internal const int MaxMessageBodyBytes = 1 << 30;

    /// <summary>
    /// The service key of the clock entries expire by, when it is not the host's <see cref="TimeProvider"/>: tests put
    /// a fake clock here without slowing Orleans' own timers, which run on the host's.
    /// </summary>
    internal const string EntryClockKey = "cubby.entries";

    /// <summary>
    /// Adds Cubby's shard grains to this silo, with their settings from the <c>Cubby</c> configuration section
    /// (checked now): the shards' store, memory budget, expiry and eviction, their placement on their home silos,
    /// their migration with their entries, the distributed grain directory they need, the silo-wide active expiry
    /// cycle, the commands on keys that other silos' RESP front doors relay here, and this silo's answer to what it holds
    /// (<c>INFO cluster</c> on the others). The silo's clustering and
    /// reminder service are the host's own.
    /// </summary>
    /// <param name="silo">The silo builder.</param>
    /// <param name="configure">Changes applied after configuration binding.</param>
    /// <returns>The silo builder.</returns>
    /// <exception cref="Microsoft.Extensions.Options.OptionsValidationException">A setting is out of range; the message names it.</exception>
    public static ISiloBuilder AddCubby(this ISiloBuilder silo, Action<ShardOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(silo);
        var options = new ShardOptions();
        silo.Configuration.GetSection(ShardOptions.SectionName).Bind(options);
        configure?.Invoke(options);
        return silo.AddCubbyShards(options);
    }

    /// <summary>
    /// Adds Cubby's shard grains, as <see cref="AddCubby"/> does, with settings the host has bound itself (Cubby's own
    /// silo binds them with its other settings); checked now.
    /// </summary>
    /// <param name="silo">The silo builder.</param>
    /// <param name="options">The shards' settings.</param>
    /// <returns>The silo builder.</returns>
    /// <exception cref="Microsoft.Extensions.Options.OptionsValidationException">A setting is out of range; the message names it.</exception>
    public static ISiloBuilder AddCubbyShards(this ISiloBuilder silo, ShardOptions options)
    {
        ArgumentNullException.ThrowIfNull(silo);
        ArgumentNullException.ThrowIfNull(options);
        ShardOptionsValidator.ThrowIfInvalid(options);
        return silo.AddCubbyShards(options, stores: null);
    }

    /// <summary>Adds the shards with <paramref name="options"/>, already bound and checked.</summary>
    /// <param name="silo">The silo builder.</param>
    /// <param name="options">The shards' settings.</param>
    /// <param name="stores">The entry stores, when not those <paramref name="options"/> name (tests).</param>
    internal static ISiloBuilder AddCubbyShards(this ISiloBuilder silo, ShardOptions options, EntryStores? stores)
    {
        silo.Services.TryAddSingleton(TimeProvider.System);
        silo.Services.AddSingleton(services => new ShardCatalog(options, services.GetKeyedService<TimeProvider>(EntryClockKey) ?? services.GetRequiredService<TimeProvider>(), stores)
        {
            Tracking = services.GetRequiredService<Tracking.ReadTracking>(),
            Fence = services.GetRequiredService<Fencing.ServingFence>(),
        });
        silo.Services.AddSingleton(static services => Fencing.ServingFence.For(services.GetRequiredService<Microsoft.Extensions.Options.IOptions<ClusterMembershipOptions>>().Value));
        silo.AddGrainService<Fencing.MembershipWitness>();
        silo.Services.AddSingleton<Fencing.FenceKeeper>();
        silo.Services.AddHostedService(static services => services.GetRequiredService<Fencing.FenceKeeper>());
        silo.Services.AddSingleton(services => new Tracking.ReadTracking(services, options.TrackingTableMaxKeys));
        silo.Services.AddSingleton<Tracking.KeyInvalidationFeed>();
        silo.AddGrainService<Tracking.KeyInvalidationListener>();
        silo.AddGrainService<Tracking.BroadcastTrackingService>();
        silo.Services.AddSingleton<Tracking.BroadcastPublisher>();
        silo.Services.AddSingleton(static services => new Tracking.DoorTracking(
            services.GetRequiredService<Tracking.KeyInvalidationFeed>(), services.GetRequiredService<Tracking.BroadcastPublisher>(), services.GetRequiredService<Tracking.ReadTracking>()));
        silo.Services.TryAddSingleton(static _ => new RespFrontDoor());
        silo.Services.AddSingleton(static services => new RelayedCommandRunner(services.GetRequiredService<ShardCatalog>(), services.GetRequiredService<RespFrontDoor>()));
        silo.Services.AddSingleton<ShardHomes>();
        silo.Services.AddSingleton<ILifecycleParticipant<ISiloLifecycle>>(static services => services.GetRequiredService<ShardHomes>());
        silo.AddGrainService<ShardHomeService>();
        silo.Services.AddSingleton<ShardHomeServices>();
        silo.Services.AddPlacementDirector<ShardPlacement, ShardPlacementDirector>();
        silo.Services.AddSingleton<ShardRebalancer>();
        silo.Services.AddHostedService(static services => services.GetRequiredService<ShardRebalancer>());
        silo.Services.AddSingleton<ILifecycleParticipant<ISiloLifecycle>>(static services => services.GetRequiredService<ShardRebalancer>());
        silo.AddGrainService<ShardSiloService>();
        silo.AddGrainService<Batches.ShardBatchService>();
        silo.Services.AddSingleton<ShardSiloClient>();
        silo.Services.AddSingleton(static services => new ShardSilos(services.GetRequiredService<ShardSiloClient>(), services.GetRequiredService<ShardHomes>()));
        silo.Services.AddSingleton<Replication.ShardReplicas>();
        silo.Services.AddSingleton<Replication.ShardResumption>();
        silo.Services.AddSingleton<Persistence.ShardFiles>();
        silo.Services.AddSingleton(static services => new ShardFigures(services.GetRequiredService<ShardCatalog>(), services.GetRequiredService<Persistence.ShardFiles>(), services.GetRequiredService<Replication.ShardReplicas>()));
        silo.Services.AddSingleton<ILifecycleParticipant<ISiloLifecycle>>(static services => services.GetRequiredService<Persistence.ShardFiles>());
        silo.AddGrainService<Replication.ShardReplicaService>();
        silo.Services.AddSingleton<Replication.ShardReplicaSilos>();
        silo.Services.AddSingleton<Replication.ReplicaLinks>();
        silo.Services.AddHostedService<ExpiryService>();
        if (options.Store == EntryStoreKind.Native && options.NativeHeapTrimInterval > TimeSpan.Zero)
        {
            silo.Services.AddHostedService(services => new NativeHeapTrimService(options.NativeHeapTrimInterval, services.GetRequiredService<TimeProvider>()));
        }

        // Orleans' default directory lost shards that migrated off a stopping silo (docs/orleans-cluster.md); the
        // distributed one is marked experimental in Orleans 10.
#pragma warning disable ORLEANSEXP003
        silo.AddDistributedGrainDirectory();
#pragma warning restore ORLEANSEXP003
        silo.Configure<SiloMessagingOptions>(messaging => messaging.MaxMessageBodySize = MaxMessageBodyBytes);

        // The full sweep is an Orleans reminder: allow the sweep interval even when it is under Orleans' 1-minute floor.
        silo.Configure<ReminderOptions>(reminders =>
            reminders.MinimumReminderPeriod = TimeSpan.FromTicks(Math.Min(reminders.MinimumReminderPeriod.Ticks, options.FullSweepInterval.Ticks)));
        return silo;
    }
}
