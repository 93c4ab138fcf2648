using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Dashboard;

/// <summary>
/// Silo executables on Orleans' Development clustering, one process each: the first keeps the table, the others join
/// it at its Orleans silo port. A silo killed here really dies (SIGKILL), so the others must detect it.
/// </summary>
internal sealed class ProcessDevelopmentCluster : IDisposable
{
    private readonly List<SiloProcess> _silos = [];

    public IReadOnlyList<SiloProcess> Silos => _silos;

    public static async Task<ProcessDevelopmentCluster> StartAsync(int silos, params string[] arguments)
    {
        var cluster = new ProcessDevelopmentCluster();
        try
        {
            for (var i = 0; i < silos; i++)
            {
                string[] common = ["--Cubby:Clustering:Mode", "Development", "--Cubby:SlotCount", "256", "--Cubby:MaxMemoryBytes", "268435456", "--Logging:LogLevel:Default", "Warning", .. arguments];
                string[] join = i == 0 ? [] : ["--Cubby:Clustering:PrimaryEndpoint", $"127.0.0.1:{cluster._silos[0].SiloPort}"];
                cluster._silos.Add(await SiloProcess.StartAsync([.. common, .. join]));
            }

            return cluster;
        }
        catch
        {
            cluster.Dispose();
            throw;
        }
    }

    public string DescribeAll() => string.Concat(_silos.Select(silo => silo.Describe()));

    public void Dispose()
    {
        foreach (var silo in _silos)
        {
            silo.Dispose();
        }
    }
}
