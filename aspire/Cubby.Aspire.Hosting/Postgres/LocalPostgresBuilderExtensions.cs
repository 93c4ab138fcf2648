using Aspire.Hosting.ApplicationModel;
using Cubby.Aspire.Hosting.Postgres;
using Microsoft.Extensions.DependencyInjection;

#pragma warning disable IDE0130 // Aspire's hosting extensions live in its namespace, where AppHost authors look for them.
namespace Aspire.Hosting;
#pragma warning restore IDE0130

/// <summary>Adds a throwaway PostgreSQL from the machine's binaries to an AppHost.</summary>
public static class LocalPostgresBuilderExtensions
{
    /// <summary>
    /// Adds a throwaway PostgreSQL server run from the machine's binaries (<c>/usr/lib/postgresql/*/bin</c>, from
    /// Debian's <c>postgresql</c> package), with no container engine: a new cluster in a temporary folder, one
    /// database, a generated password, listening on 127.0.0.1 at a port the AppHost picks; healthy once the database
    /// answers a query, and deleted with its folder when the AppHost stops it.
    /// </summary>
    /// <remarks>
    /// The resource is marked as Orleans' <c>AdoNet</c> provider, so <c>AddOrleans(...).WithClustering(postgres)</c>
    /// and <c>AddCubby(...).WithClustering(postgres)</c> name the provider Orleans knows.
    /// </remarks>
    /// <param name="builder">The AppHost's builder.</param>
    /// <param name="name">The resource's name, also the name of the connection string it hands to projects.</param>
    /// <returns>The resource's builder.</returns>
    /// <exception cref="InvalidOperationException">No PostgreSQL server binaries are installed.</exception>
    public static IResourceBuilder<LocalPostgresResource> AddLocalPostgres(this IDistributedApplicationBuilder builder, [ResourceName] string name)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        var binaries = PostgresBinaries.Find();
        var password = ParameterResourceBuilderExtensions.CreateDefaultPasswordParameter(builder, $"{name}-password", special: false);
        var postgres = new LocalPostgresResource(name, password);
        var healthCheckKey = $"{name}_check";
        builder.Services.AddHealthChecks().Add(new(healthCheckKey, services => new LocalPostgresHealthCheck(postgres), failureStatus: null, tags: null));
        return builder.AddResource(postgres)
            .WithArgs(Path.Combine(AppContext.BaseDirectory, "Postgres", "local-postgres.sh"))
            .WithEndpoint(name: LocalPostgresResource.EndpointName, scheme: "tcp", env: "PGPORT", isProxied: false)
            .WithEnvironment("PGBIN", binaries)
            .WithEnvironment("CUBBY_PG_DATABASE", LocalPostgresResource.DatabaseName)
            .WithEnvironment("CUBBY_PG_USER", LocalPostgresResource.UserName)
            .WithEnvironment("CUBBY_PG_PASSWORD", password)
            .WithOrleansProviderType("AdoNet")
            .WithHealthCheck(healthCheckKey);
    }
}
