using Cubby.Grains;
using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;
using Cubby.Silo.Cluster;
using Cubby.Silo.Commands;
using Cubby.Silo.Diagnostics;
using Cubby.Silo.Protocol;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Hosting;

/// <summary>What every connection's commands share: the grains, the budget, the settings and the statistics.</summary>
internal sealed class SiloRuntime : IDisposable
{
    public SiloRuntime(IOptions<SiloOptions> options, TimeProvider time, SiloEndpoints endpoints)
    {
        Options = options.Value;
        Time = time;
        Catalog = new ShardGrainCatalog(
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
        View = new LocalClusterView(this, endpoints);
        Endpoints = endpoints;
    }

    /// <summary>The listeners, for the port actually bound when <see cref="SiloOptions.RespPort"/> is 0 (INFO, CONFIG GET port).</summary>
    public SiloEndpoints Endpoints { get; }

    /// <summary>The cluster view served by CUBBY.VIEW.</summary>
    public LocalClusterView View { get; }

    public SiloOptions Options { get; }

    public TimeProvider Time { get; }

    public ShardGrainCatalog Catalog { get; }

    public Evictor Evictor { get; }

    public CommandTable Commands { get; } = CommandTable.Create();

    public SiloStatistics Statistics { get; } = new();

    public ClientRegistry Clients { get; } = new();

    public DateTimeOffset StartedAt { get; }

    public long NowMilliseconds => Time.GetUtcNow().ToUnixTimeMilliseconds();

    public void Dispose() => Catalog.Dispose();
}
