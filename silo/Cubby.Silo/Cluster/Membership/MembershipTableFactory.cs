using System.Net;
using Cubby.Client;
using Cubby.Silo.Cluster.Links;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Cluster.Membership;

/// <summary>Picks the membership table <c>Cubby:Clustering:Mode</c> asks for.</summary>
internal static class MembershipTableFactory
{
    /// <summary>
    /// Localhost: a table of one in memory. Development: the primary's own in-memory table on the primary, a table
    /// forwarded to it elsewhere. Postgres: the cluster's rows in the database.
    /// </summary>
    public static IMembershipTable Create(SiloOptions options, SiloLinks links, PrimaryMembershipTables primary)
    {
        var clustering = options.Clustering;
        switch (clustering.Mode)
        {
            case ClusteringMode.Localhost:
                return new InMemoryMembershipTable(options.ClusterId);
            case ClusteringMode.Development when primary.IsPrimary:
                return primary.For(options.ClusterId);
            case ClusteringMode.Development:
                return EndpointAddress.TryParse(clustering.PrimaryEndpoint, out var host, out var port)
                    ? new RemoteMembershipTable(options.ClusterId, host, port, links)
                    : throw new ArgumentException($"Cubby:Clustering:PrimaryEndpoint must be host:port (was '{clustering.PrimaryEndpoint}').", nameof(options));
            case ClusteringMode.Postgres:
                return new PostgresMembershipTable(options.ClusterId, clustering.ConnectionString!);
            default:
                throw new ArgumentOutOfRangeException(nameof(options), clustering.Mode, "Unknown Cubby:Clustering:Mode.");
        }
    }

    /// <summary>Development mode, and no primary endpoint is set or it names this silo's own RESP endpoint.</summary>
    public static bool IsDevelopmentPrimary(SiloOptions options)
    {
        var clustering = options.Clustering;
        if (clustering.Mode != ClusteringMode.Development)
        {
            return false;
        }

        if (clustering.PrimaryEndpoint is null)
        {
            return true;
        }

        return EndpointAddress.TryParse(clustering.PrimaryEndpoint, out var host, out var port)
            && port == options.RespPort
            && (string.Equals(host, options.Host, StringComparison.OrdinalIgnoreCase)
                || (IsLoopback(host) && (IsLoopback(options.Host) || options.Host == "*"))
                || (options.Host == "*" && string.Equals(host, Environment.MachineName, StringComparison.OrdinalIgnoreCase)));
    }

    private static bool IsLoopback(string host) =>
        string.Equals(host, "localhost", StringComparison.OrdinalIgnoreCase) || (IPAddress.TryParse(host, out var address) && IPAddress.IsLoopback(address));
}
