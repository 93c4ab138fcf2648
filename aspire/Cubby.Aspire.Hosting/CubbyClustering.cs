using Aspire.Hosting;
using Aspire.Hosting.ApplicationModel;
using Aspire.Hosting.Orleans;

namespace Cubby.Aspire.Hosting;

/// <summary>
/// The clustering <c>Aspire.Hosting.Orleans</c> hands each silo, decided when the silo starts rather than when it was
/// added, so <c>AddCubby(...).WithClustering(database)</c> can choose after the silos exist: Orleans' ADO.NET provider
/// on <see cref="CubbyResource.ClusteringDatabase"/>, else development clustering (the first silo keeps the table).
/// </summary>
internal sealed class CubbyClustering(CubbyResource cache) : IProviderConfiguration
{
    public void ConfigureResource<T>(IResourceBuilder<T> resourceBuilder, string configSectionPath)
        where T : IResourceWithEnvironment
    {
        var prefix = $"Orleans__{configSectionPath.Replace(":", "__", StringComparison.Ordinal)}__";
        resourceBuilder.WithEnvironment(context =>
        {
            if (cache.ClusteringDatabase is { } database)
            {
                context.EnvironmentVariables[prefix + "ProviderType"] = "AdoNet";
                context.EnvironmentVariables[prefix + "ServiceKey"] = database.Name;
                return;
            }

            context.EnvironmentVariables[prefix + "ProviderType"] = "Development";
            if (cache.Silos[0] != (IResource)resourceBuilder.Resource)
            {
                var primary = cache.Silos[0].GetEndpoint(CubbyEndpointNames.OrleansSilo);
                context.EnvironmentVariables[prefix + "PrimarySiloEndpoint"] =
                    ReferenceExpression.Create($"{primary.Property(EndpointProperty.IPV4Host)}:{primary.Property(EndpointProperty.Port)}");
            }
        });
    }
}
