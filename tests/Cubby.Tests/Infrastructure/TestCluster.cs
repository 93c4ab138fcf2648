using System.Net;
using Cubby.Grains.Placement;
using Cubby.Silo.Clustering;
using Cubby.Silo.Hosting;
using Cubby.Tests.Client;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Infrastructure;

/// <summary>
/// Several real silos in the test process on Orleans' Development clustering: the first keeps the membership table,
/// the others join it at its Orleans silo port. Each has its own RESP front door on a free loopback port.
/// </summary>
public sealed class TestCluster : IAsyncDisposable
{
    private readonly List<TestSilo> _silos = [];
    private readonly Action<SiloOptions>? _configure;

    private TestCluster(Action<SiloOptions>? configure) => _configure = configure;

    public IReadOnlyList<TestSilo> Silos => _silos;

    public TestSilo Primary => _silos[0];

    /// <summary>Starts <paramref name="silos"/> silos and waits until each sees all of them active.</summary>
    public static async Task<TestCluster> StartAsync(int silos, Action<SiloOptions>? configure = null)
    {
        var cluster = new TestCluster(configure);
        try
        {
            for (var i = 0; i < silos; i++)
            {
                await cluster.AddSiloAsync();
            }

            await cluster.WaitForActiveSilosAsync(silos);
            return cluster;
        }
        catch
        {
            await cluster.DisposeAsync();
            throw;
        }
    }

    /// <summary>Starts one more silo that joins the cluster.</summary>
    public async Task<TestSilo> AddSiloAsync()
    {
        var primary = _silos.Count == 0 ? null : $"127.0.0.1:{_silos[0].SiloEndpoint.Port}";
        var silo = await TestSilo.StartAsync(options =>
        {
            options.Clustering.Mode = ClusteringMode.Development;
            options.Clustering.PrimaryEndpoint = primary;
            _configure?.Invoke(options);
        });
        _silos.Add(silo);
        return silo;
    }

    /// <summary>Stops a silo gracefully (its shards move to the others first) and forgets it.</summary>
    public async Task StopAsync(TestSilo silo)
    {
        _silos.Remove(silo);
        await silo.DisposeAsync();
    }

    /// <summary>
    /// Waits until every running silo sees exactly <paramref name="count"/> active silos and can place shards on each:
    /// a joiner's grain types reach the others' cluster manifests after its membership does, and a shard activated
    /// between the two lands on a silo that already knew the types.
    /// </summary>
    public Task WaitForActiveSilosAsync(int count) =>
        Poll.UntilAsync(
            () => Task.FromResult(_silos.All(silo =>
                silo.Services.GetRequiredService<IClusterMembershipService>().CurrentSnapshot.Members.Values.Count(member => member.Status == SiloStatus.Active) == count
                && silo.Services.GetRequiredService<ShardHomes>().Homes().Length == count)),
            TimeSpan.FromSeconds(60),
            $"every silo to see {count} active silos hosting shards");

    public async ValueTask DisposeAsync()
    {
        // Joiners first, the primary (which keeps the table) last.
        for (var i = _silos.Count - 1; i >= 0; i--)
        {
            await _silos[i].DisposeAsync();
        }

        _silos.Clear();
    }
}
