namespace Cubby.AppHost.Resources;

/// <summary>The silos as one cluster: they share a membership, and apps reference them as the <c>cubby</c> connection string.</summary>
internal sealed class SiloCluster(IReadOnlyList<SiloResource> silos, DevContext context) : IConnectionSource
{
    public IReadOnlyList<SiloResource> Silos => silos;

    public string ConnectionName => "cubby";

    /// <summary>Every silo's RESP endpoint: the client reads the view from the first that answers.</summary>
    public string ConnectionString => string.Join(',', silos.Select(silo => silo.RespEndpoint));

    /// <summary>
    /// PostgreSQL membership when there is a database; otherwise Development membership, where the first silo keeps
    /// the table in memory and the others join it (so it must start first and stop last, as it does here).
    /// </summary>
    public SiloCluster WithMembership(Postgres.PostgresResource? postgres)
    {
        // Silos authenticate each other with it; a new one per run keeps strangers out of a dev cluster.
        var secret = Convert.ToHexString(System.Security.Cryptography.RandomNumberGenerator.GetBytes(16));
        foreach (var silo in silos)
        {
            silo.SetEnvironment("Cubby__Clustering__Secret", secret);
            if (postgres is null)
            {
                silo.SetEnvironment("Cubby__Clustering__Mode", "Development");
                if (silo != silos[0])
                {
                    silo.SetEnvironment("Cubby__Clustering__PrimaryEndpoint", silos[0].RespEndpoint);
                }
            }
            else
            {
                silo.SetEnvironment("Cubby__Clustering__Mode", "Postgres");
                silo.SetEnvironment("Cubby__Clustering__ConnectionString", postgres.ConnectionString);

                // A cluster id of its own, so a shared database's rows from earlier runs are never this run's peers.
                silo.SetEnvironment("Cubby__ClusterId", $"dev-{context.RunId}");
            }
        }

        return this;
    }
}
