using System.Globalization;

namespace Cubby.Load.Cluster;

/// <summary>Silo processes in one Development cluster on this machine, for the commands that measure a cluster.</summary>
internal static class DevelopmentCluster
{
    /// <summary>
    /// Starts <paramref name="count"/> silos, each with <paramref name="arguments"/>: the first keeps the Development
    /// membership table, the others join it at its silo port.
    /// </summary>
    public static async Task<ServerProcess[]> StartAsync(ToolSet tools, int count, IReadOnlyList<string> arguments)
    {
        var primaryPort = ServerProcess.FreePort();
        string[] common = ["--Cubby:Clustering:Mode", "Development", .. arguments];
        var silos = new List<ServerProcess>();
        try
        {
            silos.Add(await ServerProcess.StartAsync(ServerKind.Cubby, tools, [.. common, "--Cubby:Clustering:SiloPort", primaryPort.ToString(CultureInfo.InvariantCulture)]).ConfigureAwait(false));
            for (var i = 1; i < count; i++)
            {
                silos.Add(await ServerProcess.StartAsync(ServerKind.Cubby, tools, [.. common, "--Cubby:Clustering:PrimaryEndpoint", $"127.0.0.1:{primaryPort}"]).ConfigureAwait(false));
            }

            return [.. silos];
        }
        catch
        {
            silos.ForEach(static silo => silo.Dispose());
            throw;
        }
    }
}
