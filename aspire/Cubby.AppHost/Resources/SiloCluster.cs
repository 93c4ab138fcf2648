namespace Cubby.AppHost.Resources;

/// <summary>The silos as one Orleans cluster, which apps reference as the <c>cubby</c> connection string.</summary>
internal sealed class SiloCluster(IReadOnlyList<SiloResource> silos, DevContext context) : IConnectionSource
{
    private string? _clusterId;

    public IReadOnlyList<SiloResource> Silos => silos;

    public string ConnectionName => "cubby";

    /// <summary>Every silo's Orleans gateway endpoint: where Cubby's client connects.</summary>
    public string ConnectionString => string.Join(',', silos.Select(silo => silo.GatewayEndpoint));

    /// <summary>The cluster id the silos were given, which the client must name too.</summary>
    public IEnumerable<KeyValuePair<string, string>> ClientEnvironment =>
        _clusterId is null ? [] : [new("Cubby__Client__ClusterId", _clusterId)];

    /// <summary>
    /// Orleans' ADO.NET clustering on PostgreSQL when there is a database; otherwise Orleans' Development clustering,
    /// where the first silo keeps the table in memory and the others join it at its silo port (so it must start first
    /// and stop last, as it does here).
    /// </summary>
    public SiloCluster WithMembership(Postgres.PostgresResource? postgres)
    {
        foreach (var silo in silos)
        {
            if (postgres is null)
            {
                silo.SetEnvironment("Cubby__Clustering__Mode", "Development");
                if (silo != silos[0])
                {
                    silo.SetEnvironment("Cubby__Clustering__PrimaryEndpoint", silos[0].SiloEndpoint);
                }
            }
            else
            {
                silo.SetEnvironment("Cubby__Clustering__Mode", "Postgres");
                silo.SetEnvironment("Cubby__Clustering__ConnectionString", postgres.ConnectionString);

                // A cluster id of its own, so a shared database's rows from earlier runs are never this run's peers.
                _clusterId = $"dev-{context.RunId}";
                silo.SetEnvironment("Cubby__ClusterId", _clusterId);
            }
        }

        return this;
    }
}
