using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Grains.Storage;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Configuration;
using Orleans.Hosting;
using Orleans.TestingHost;

namespace Cubby.Tests.Orleans;

/// <summary>
/// Real Orleans silos in the test process (Orleans.TestingHost), each hosting Cubby's shard grains on the native store,
/// with the distributed grain directory and in-memory reminders as the silo host configures them.
/// </summary>
internal sealed class ShardCluster : IAsyncDisposable
{
    private ShardCluster(InProcessTestCluster cluster)
    {
        Cluster = cluster;
    }

    public InProcessTestCluster Cluster { get; }

    public IGrainFactory Grains => Cluster.Client;

    /// <summary>
    /// Starts <paramref name="silos"/> silos; <paramref name="configureSilo"/> is given each silo, with the order it starts
    /// in (0 first, silos added later after).
    /// </summary>
    public static async Task<ShardCluster> StartAsync(short silos, ShardOptions? settings = null, TimeSpan? minimumReminderPeriod = null, Action<int, ISiloBuilder>? configureSilo = null)
    {
        var started = -1;
        var builder = new InProcessTestClusterBuilder(silos);
        // Experimental in Orleans 10, but the default directory lost migrated shards on graceful stop
        // (docs/orleans-cluster.md).
#pragma warning disable ORLEANSEXP003
        builder.Options.UseDistributedGrainDirectory = true;
#pragma warning restore ORLEANSEXP003
        builder.Options.ConfigureFileLogging = false;
        builder.ConfigureSilo((_, silo) =>
        {
            silo.AddCubbyShards(settings ?? new ShardOptions { KeptForReuseBytes = 0, MaxMemoryBytes = 256L * 1024 * 1024 }, EntryStores.Native(0, 1024 * 1024));
            configureSilo?.Invoke(Interlocked.Increment(ref started), silo);
            silo.UseInMemoryReminderService();
            if (minimumReminderPeriod is { } period)
            {
                silo.Services.Configure<ReminderOptions>(options => options.MinimumReminderPeriod = period);
            }
        });
        var cluster = builder.Build();
        await cluster.DeployAsync();
        return new ShardCluster(cluster);
    }

    /// <summary>The shards each silo holds now, by silo.</summary>
    public int[] ShardsPerSilo() =>
        [.. Cluster.GetActiveSilos().Select(static silo => CountShards(silo.ServiceProvider.GetRequiredService<ShardCatalog>()))];

    public static int CountShards(ShardCatalog catalog)
    {
        var count = 0;
        for (var shard = 0; shard < catalog.SlotCount; shard++)
        {
            count += catalog.Find(shard) is { IsOpen: true } ? 1 : 0;
        }

        return count;
    }

    public async ValueTask DisposeAsync() => await Cluster.DisposeAsync();
}
