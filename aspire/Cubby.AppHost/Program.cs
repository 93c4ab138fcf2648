// Cubby's dev environment: PostgreSQL for Orleans' membership, a cluster of Cubby silos on it, and the sample web app
// as a client of the silos. Settings: AppHost:Silos (3), and ConnectionStrings:postgres to use an existing PostgreSQL
// instead of a throwaway one from the machine's binaries.
using Microsoft.Extensions.Configuration;

var builder = DistributedApplication.CreateBuilder(args);

IResourceBuilder<IResourceWithConnectionString> postgres = builder.Configuration.GetConnectionString("postgres") is { Length: > 0 }
    ? builder.AddConnectionString("postgres").WithOrleansProviderType("AdoNet")
    : builder.AddLocalPostgres("postgres");

var cache = builder.AddCubby("cache", builder.Configuration.GetValue("AppHost:Silos", 3))
    .WithClusterId("cubby-dev")
    .WithServiceId("cubby")
    .WithClustering(postgres);

builder.AddProject<Projects.Cubby_SampleWeb>("web")
    .WithReference(cache)
    .WaitFor(cache)
    .WithHttpEndpoint()
    .WithHttpHealthCheck("/health");

await builder.Build().RunAsync().ConfigureAwait(false);
