using Cubby.Grains;
using Cubby.Grains.Capacity;
using Cubby.Grains.Commands;
using Cubby.Grains.Reports;
using Cubby.Silo.Clustering;
using Cubby.Silo.Commands;
using Cubby.Silo.Diagnostics;
using Cubby.Silo.Protocol;
using Cubby.Silo.PubSub;
using Cubby.Silo.Tracking;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Hosting;

/// <summary>What every connection's commands share: the shards held here, the way to the others, the settings and the statistics.</summary>
internal sealed class SiloRuntime(
    IOptions<SiloOptions> options,
    SiloEndpoints endpoints,
    ShardCatalog catalog,
    IGrainFactory? grains = null,
    IClusterMembershipService? membership = null,
    SiloReports? reports = null,
    ShardSilos? shardSilos = null,
    ILocalSiloDetails? local = null,
    PubSubPeers? pubSubPeers = null,
    ShardFigures? figures = null,
    Grains.Tracking.DoorTracking? tracking = null,
    Grains.Hosting.RespFrontDoor? respDoor = null)
{
    private const string NoOrleans = "This runtime was built without an Orleans silo (a benchmark's or test's bare runtime); it serves only shards it holds.";

    /// <summary>This silo's Orleans address.</summary>
    public SiloAddress Self => local?.SiloAddress ?? throw new InvalidOperationException(NoOrleans);

    /// <summary>The listeners, for the port actually bound when <see cref="SiloOptions.RespPort"/> is 0 (INFO, CONFIG GET port).</summary>
    public SiloEndpoints Endpoints { get; } = endpoints;

    public SiloOptions Options { get; } = options.Value;

    /// <summary>The clock entries expire by (the catalog's).</summary>
    public TimeProvider Time => Catalog.Time;

    /// <summary>The shards active on this silo, which commands run on directly.</summary>
    public ShardCatalog Catalog { get; } = catalog;

    /// <summary>CLIENT TRACKING's link to the shards; null in a runtime without Orleans.</summary>
    public Grains.Tracking.DoorTracking? Tracking => tracking;

    /// <summary>What the shards here hold and have done: entries, memory, removals, migrations, persistence.</summary>
    public ShardFigures Figures => figures ?? throw new InvalidOperationException(NoOrleans);

    /// <summary>The saves of the cluster this silo ran (SAVE, BGSAVE).</summary>
    public ClusterSaves Saves { get; } = new(catalog.Time);

    /// <summary>The way to every shard through Orleans, wherever it is active.</summary>
    public IGrainFactory Grains => grains ?? throw new InvalidOperationException(NoOrleans);

    /// <summary>Orleans' view of the cluster.</summary>
    public IClusterMembershipService Membership => membership ?? throw new InvalidOperationException(NoOrleans);

    /// <summary>The other Cubby silos' dashboard numbers.</summary>
    public SiloReports Reports => reports ?? throw new InvalidOperationException(NoOrleans);

    /// <summary>What each silo holding shards says of itself (RESP endpoint, counts), plain Orleans hosts included.</summary>
    public ShardSilos ShardSilos => shardSilos ?? throw new InvalidOperationException(NoOrleans);

    /// <summary>This silo's pub/sub subscribers.</summary>
    public PubSubHub PubSub { get; } = new();

    /// <summary>The other Cubby silos' pub/sub, which every publish reaches too; null in a runtime without Orleans.</summary>
    public PubSubPeers? PubSubPeers { get; } = pubSubPeers;

    public CommandTable Commands { get; } = CommandTable.Create();

    public SiloStatistics Statistics { get; } = new();

    /// <summary>Commands by name and result, their latencies, and operations per slot.</summary>
    public CommandMetrics Metrics { get; } = new(CommandTable.Create().All.Select(static command => command.Name));

    /// <summary>The last minutes of activity, one point a second, for the dashboard.</summary>
    public SiloSeries Series { get; } = new();

    public ClientRegistry Clients { get; } = new();

    /// <summary>The keys this silo's tracking connections read (CLIENT TRACKING).</summary>
    public TrackedKeys TrackedKeys => (Volatile.Read(ref _tracking) ?? StartTracking()).Keys;

    /// <summary>This silo's connections in CLIENT TRACKING BCAST mode.</summary>
    public BroadcastClients Broadcasts => (Volatile.Read(ref _tracking) ?? StartTracking()).Broadcasts;

    private readonly Lock _trackingGate = new();
    private TrackingState? _tracking;

    public DateTimeOffset StartedAt { get; } = catalog.Time.GetUtcNow();

    /// <summary>This run of the silo: 40 random hex digits, as Redis's run_id and master_replid.</summary>
    public string RunId { get; } = Convert.ToHexStringLower(System.Security.Cryptography.RandomNumberGenerator.GetBytes(20));

    public long NowMilliseconds => Time.GetUtcNow().ToUnixTimeMilliseconds();

    /// <summary>
    /// A runtime with every shard active on it and no Orleans silo around it, for measuring the command path alone
    /// (the dispatch benchmarks and allocation tests). The caller disposes <see cref="Catalog"/>.
    /// </summary>
    internal static SiloRuntime WithEveryShardHere(SiloOptions options, TimeProvider time)
    {
        var catalog = new ShardCatalog(options, time);
        for (var slot = 0; slot < catalog.SlotCount; slot++)
        {
            _ = catalog.GetOrCreate(slot);
        }

        return new SiloRuntime(Microsoft.Extensions.Options.Options.Create(options), new SiloEndpoints(), catalog);
    }

    /// <summary>Made when tracking is first asked for; from then on the invalidations the shards send this silo reach its connections.</summary>
    private TrackingState StartTracking()
    {
        lock (_trackingGate)
        {
            if (_tracking is null)
            {
                var broadcasts = new BroadcastClients(tracking);
                var keys = new TrackedKeys(key => Catalog.ShardMap.SlotOf(key), Clients, broadcasts);
                tracking?.Listen(keys.Invalidated);
                Volatile.Write(ref _tracking, new TrackingState(keys, broadcasts));
            }

            return _tracking;
        }
    }

    private sealed record TrackingState(TrackedKeys Keys, BroadcastClients Broadcasts);

    /// <summary>This silo's front door as its shards answer CUBBY.OWNER; null in a runtime without Orleans.</summary>
    public Grains.Hosting.RespFrontDoor? RespDoor => respDoor;

    /// <summary>Where clients reach this silo's RESP front door, <c>host:port</c>, as other silos report it.</summary>
    public string RespEndpoint => $"{OrleansClustering.AdvertisedAddress(Options)}:{Endpoints.Resp.Port}";
}
