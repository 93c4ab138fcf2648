using Aspire.Hosting.ApplicationModel;
using Cubby.Aspire.Hosting;

#pragma warning disable IDE0130 // Aspire's hosting extensions live in its namespace, where AppHost authors look for them.
namespace Aspire.Hosting;
#pragma warning restore IDE0130

/// <summary>Adds Cubby clusters to an Aspire AppHost.</summary>
public static class CubbyBuilderExtensions
{
    /// <summary>The most silos one <see cref="AddCubby"/> call starts.</summary>
    public const int MaxSilos = 16;

    /// <summary>
    /// Adds a Cubby cluster: <paramref name="silos"/> silo processes named <c>{name}-silo-{n}</c> (the silo program this
    /// library carries, run with <c>dotnet</c>, exporting telemetry to the AppHost's dashboard), each an Orleans silo
    /// wired with <c>Aspire.Hosting.Orleans</c> (cluster and service ids, silo and gateway ports, distributed tracing)
    /// with its own RESP and HTTP endpoints, health-checked at <c>/health</c>. The cluster uses development clustering
    /// (the first silo keeps the membership table) until <see cref="WithClustering"/> names a database.
    /// <c>project.WithReference(cache)</c> hands a project the connection string <c>ConnectionStrings__{name}</c>,
    /// which <c>builder.AddCubbyClient("{name}")</c> (Cubby.Aspire.Client) reads; <c>WaitFor(cache)</c> waits until
    /// every silo is healthy.
    /// </summary>
    /// <param name="builder">The AppHost's builder.</param>
    /// <param name="name">The resource's name.</param>
    /// <param name="silos">How many silos, from 1 to <see cref="MaxSilos"/>.</param>
    /// <returns>The cluster resource's builder.</returns>
    public static IResourceBuilder<CubbyResource> AddCubby(this IDistributedApplicationBuilder builder, [ResourceName] string name, int silos = 3)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentOutOfRangeException.ThrowIfLessThan(silos, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(silos, MaxSilos);

        var cache = new CubbyResource(name);
        var orleans = builder.AddOrleans(name).WithClusterId(cache.ClusterId).WithServiceId(cache.ServiceId);
        orleans.Clustering = new CubbyClustering(cache);
        cache.Orleans = orleans;
        var cacheBuilder = builder.AddResource(cache)
            .WithInitialState(new CustomResourceSnapshot { ResourceType = "Cubby", State = KnownResourceStates.NotStarted, Properties = [] })
            .OnInitializeResource(StartAsync);

        CubbySiloProgram.EnsureExists();
        IResourceBuilder<ExecutableResource>? first = null;
        for (var i = 1; i <= silos; i++)
        {
            var silo = builder.AddExecutable($"{name}-silo-{i}", "dotnet", CubbySiloProgram.Directory, CubbySiloProgram.AssemblyPath)
                .WithOtlpExporter()
                .WithReference(orleans)

                // Orleans' ports listen as they are, with no proxy: a silo's address is its identity in the cluster, and
                // other resources (joining silos, clients) can only be handed a port the AppHost picked up front.
                .WithEndpoint(CubbyEndpointNames.OrleansSilo, static endpoint => endpoint.IsProxied = false)
                .WithEndpoint(CubbyEndpointNames.OrleansGateway, static endpoint => endpoint.IsProxied = false)
                .WithEndpoint(name: CubbyEndpointNames.Resp, scheme: "tcp", env: "Cubby__RespPort", isProxied: false)
                .WithHttpEndpoint(name: CubbyEndpointNames.Http, env: "Cubby__HttpPort", isProxied: false)
                .WithHttpHealthCheck("/health", endpointName: CubbyEndpointNames.Http)

                // A silo serves its dashboards only when asked; a development environment is where they are wanted.
                .WithEnvironment("Cubby__Dashboard__Enabled", "true")
                .WithUrlForEndpoint(CubbyEndpointNames.Http, static _ => new() { Url = "/dashboard/", DisplayText = "Orleans dashboard" })
                .WithUrlForEndpoint(CubbyEndpointNames.Http, static _ => new() { Url = "/dashboard/cache", DisplayText = "Cubby cache page" })
                .WithParentRelationship(cacheBuilder);

            // The first silo creates Cubby's tables (or keeps the development table); the others join once it serves.
            if (first is null)
            {
                first = silo;
            }
            else
            {
                silo.WaitFor(first);
            }

            cache.AddSilo(silo.Resource);
            cacheBuilder.WaitFor(silo);
        }

        return cacheBuilder;
    }

    /// <summary>
    /// Keeps the cluster's membership and reminders in <paramref name="database"/> with Orleans' ADO.NET providers
    /// (PostgreSQL: <c>AddLocalPostgres</c>, or any connection-string resource for an Npgsql database); the silos
    /// apply Cubby's schema to it and wait for it to be healthy.
    /// </summary>
    /// <param name="builder">The cluster's builder.</param>
    /// <param name="database">A PostgreSQL database resource.</param>
    /// <returns>The cluster's builder.</returns>
    public static IResourceBuilder<CubbyResource> WithClustering(this IResourceBuilder<CubbyResource> builder, IResourceBuilder<IResourceWithConnectionString> database)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(database);
        builder.Resource.ClusteringDatabase = database.Resource;
        foreach (var silo in builder.Resource.Silos)
        {
            builder.ApplicationBuilder.CreateResourceBuilder(silo).WithReference(database).WaitFor(database);
        }

        return builder;
    }

    /// <summary>
    /// Keeps the cluster's shards on disk across restarts (<c>Cubby:Persistence:Directory</c>), as Aspire's Redis keeps
    /// its data with <c>WithDataBindMount</c>: each silo in a folder of its own under <paramref name="path"/>, named after
    /// the silo's resource. A relative path is taken from the AppHost's folder. Stopped (the AppHost ends), the last silo
    /// writes the shards it holds; started again, the silos load them before they serve.
    /// </summary>
    /// <param name="builder">The cluster's builder.</param>
    /// <param name="path">The folder the silos' folders go in; made when missing.</param>
    /// <returns>The cluster's builder.</returns>
    public static IResourceBuilder<CubbyResource> WithDataDirectory(this IResourceBuilder<CubbyResource> builder, string path)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        var root = Path.GetFullPath(path, builder.ApplicationBuilder.AppHostDirectory);
        foreach (var silo in builder.Resource.Silos)
        {
            builder.ApplicationBuilder.CreateResourceBuilder(silo).WithEnvironment("Cubby__Persistence__Directory", Path.Combine(root, silo.Name));
        }

        return builder;
    }

    /// <summary>Sets Orleans' cluster id of the silos (the resource's name by default), which the connection string carries.</summary>
    /// <param name="builder">The cluster's builder.</param>
    /// <param name="clusterId">The cluster id.</param>
    /// <returns>The cluster's builder.</returns>
    public static IResourceBuilder<CubbyResource> WithClusterId(this IResourceBuilder<CubbyResource> builder, string clusterId)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrWhiteSpace(clusterId);
        builder.Resource.ClusterId = clusterId;
        builder.Resource.Orleans?.WithClusterId(clusterId);
        return builder;
    }

    /// <summary>Sets Orleans' service id of the silos (the resource's name by default), which the connection string carries.</summary>
    /// <param name="builder">The cluster's builder.</param>
    /// <param name="serviceId">The service id.</param>
    /// <returns>The cluster's builder.</returns>
    public static IResourceBuilder<CubbyResource> WithServiceId(this IResourceBuilder<CubbyResource> builder, string serviceId)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrWhiteSpace(serviceId);
        builder.Resource.ServiceId = serviceId;
        builder.Resource.Orleans?.WithServiceId(serviceId);
        return builder;
    }

    /// <summary>
    /// Running once every silo is healthy (the wait happens in BeforeResourceStartedEvent), then the connection string is
    /// announced; failed as soon as a silo ends before that (Aspire's wait for health would wait for a restart).
    /// </summary>
    private static async Task StartAsync(CubbyResource cache, InitializeResourceEvent initialize, CancellationToken cancellationToken)
    {
        using var starting = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        var ready = initialize.Eventing.PublishAsync(new BeforeResourceStartedEvent(cache, initialize.Services), starting.Token);
        var ended = Task.WhenAny(cache.Silos.Select(silo =>
            initialize.Notifications.WaitForResourceAsync(silo.Name, KnownResourceStates.TerminalStates, starting.Token)));
        try
        {
            if (await Task.WhenAny(ready, ended).ConfigureAwait(false) == ended)
            {
                await starting.CancelAsync().ConfigureAwait(false);
                await Fail(cache, initialize).ConfigureAwait(false);
                return;
            }

            await ready.ConfigureAwait(false);
            await starting.CancelAsync().ConfigureAwait(false);
            await initialize.Notifications.PublishUpdateAsync(cache, static snapshot => snapshot with
            {
                State = KnownResourceStates.Running,
                StartTimeStamp = DateTime.UtcNow,
            }).ConfigureAwait(false);
            await initialize.Eventing.PublishAsync(new ConnectionStringAvailableEvent(cache, initialize.Services), cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            // The wait's own failure (a silo that failed to start) is already in the resource's log.
            await Fail(cache, initialize).ConfigureAwait(false);
        }

        static Task Fail(CubbyResource cache, InitializeResourceEvent initialize) =>
            initialize.Notifications.PublishUpdateAsync(cache, static snapshot => snapshot with { State = KnownResourceStates.FailedToStart });
    }
}
