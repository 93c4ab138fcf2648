using Cubby.Grains;
using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;
using Cubby.Silo.Cluster;
using Cubby.Silo.Cluster.Handoff;
using Cubby.Silo.Cluster.Links;
using Cubby.Silo.Cluster.Membership;
using Cubby.Silo.Commands;
using Cubby.Silo.Diagnostics;
using Cubby.Silo.Protocol;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Hosting;

/// <summary>What every connection's commands share: the grains, the budget, the settings and the statistics.</summary>
internal sealed class SiloRuntime : IDisposable
{
    public SiloRuntime(
        IOptions<SiloOptions> options,
        TimeProvider time,
        SiloEndpoints endpoints,
        SiloLinks links,
        ILoggerFactory loggers,
        IClusterMembership? membership = null,
        PrimaryMembershipTables? membershipTables = null)
    {
        Membership = membership;
        MembershipTables = membershipTables;
        Options = options.Value;
        Time = time;
        Catalog = new ShardCatalog(
            new GrainSettings
            {
                SlotCount = Options.SlotCount,
                MaxValueBytes = Options.MaxValueBytes,
                MaxMemoryBytes = Options.EffectiveMaxMemoryBytes,
                EvictionSamples = Options.EvictionSamples,
                ActiveExpiryInterval = Options.ActiveExpiryInterval,
                ActiveExpiryBudget = Options.ActiveExpiryBudget,
                FullSweepInterval = Options.FullSweepInterval,
            },
            time,
            Options.Store == EntryStoreKind.Managed ? static () => new ManagedEntryStore() : static () => new NativeEntryStore());
        Evictor = new Evictor(Catalog);
        StartedAt = time.GetUtcNow();
        Cluster = new ClusterState(Options.SlotCount, standalone: Options.Clustering.Mode == ClusteringMode.Localhost);
        Links = links;
        Incoming = new HandoffReceiver(this, loggers.CreateLogger<HandoffReceiver>());
        Endpoints = endpoints;
        Metrics = new CommandMetrics(Commands.All.Select(static command => command.Name), Options.SlotCount);
    }

    /// <summary>The listeners, for the port actually bound when <see cref="SiloOptions.RespPort"/> is 0 (INFO, CONFIG GET port).</summary>
    public SiloEndpoints Endpoints { get; }

    /// <summary>The cluster view and where each slot's data is.</summary>
    public ClusterState Cluster { get; }

    /// <summary>This silo's membership (probes and "table changed" from peers); null only in tests that build a bare runtime.</summary>
    public IClusterMembership? Membership { get; }

    /// <summary>The tables this silo keeps as the Development primary; null only in tests that build a bare runtime.</summary>
    public PrimaryMembershipTables? MembershipTables { get; }

    /// <summary>Slots being handed to this silo.</summary>
    public HandoffReceiver Incoming { get; }

    /// <summary>Connections to the other silos, for forwarded calls.</summary>
    public SiloLinks Links { get; }

    public SiloOptions Options { get; }

    public TimeProvider Time { get; }

    public ShardCatalog Catalog { get; }

    public Evictor Evictor { get; }

    public CommandTable Commands { get; } = CommandTable.Create();

    public SiloStatistics Statistics { get; } = new();

    /// <summary>Commands by name and result, their latencies, and operations per slot.</summary>
    public CommandMetrics Metrics { get; }

    /// <summary>The last minutes of activity, one point a second, for the dashboard.</summary>
    public SiloSeries Series { get; } = new();

    public ClientRegistry Clients { get; } = new();

    public DateTimeOffset StartedAt { get; }

    public long NowMilliseconds => Time.GetUtcNow().ToUnixTimeMilliseconds();

    public void Dispose()
    {
        Incoming.Dispose();
        Catalog.Dispose();
    }
}
