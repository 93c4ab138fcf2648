using System.Diagnostics.Metrics;
using Cubby.Client;
using Cubby.Client.Caching;
using Cubby.Client.DependencyInjection;
using Cubby.Client.Filling;
using Cubby.Client.Gateways;
using Cubby.Client.NearCaching;
using Cubby.Client.Serialization;
using Cubby.Client.Shards;
using Cubby.Sharding;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using Orleans;
using Orleans.Configuration;
using Orleans.Hosting;
using Orleans.Messaging;
using Orleans.Runtime;
using Orleans.Runtime.Membership;

#pragma warning disable IDE0130 // Extension methods live in the DI namespace, where callers already look for them.
namespace Microsoft.Extensions.DependencyInjection;
#pragma warning restore IDE0130

/// <summary>Registers Cubby's client in a service collection.</summary>
public static class CubbyServiceCollectionExtensions
{
    private const string NpgsqlInvariant = "Npgsql";

    /// <summary>
    /// Adds <see cref="ICubbyClient"/>, configured from the <c>Cubby:Client</c> configuration section, then the
    /// <c>ConnectionStrings:cubby</c> connection string (<see cref="CubbyClientOptions.ConnectionStringName"/>, in
    /// either form <see cref="CubbyConnectionString"/> reads), then <paramref name="configure"/>, each winning over the
    /// ones before (the connection string's endpoints are added to the section's), validated when the host starts.
    /// </summary>
    /// <remarks>
    /// When Orleans is already registered (<c>UseOrleans</c> for a silo, such as one that runs <c>AddCubby()</c>, or
    /// <c>UseOrleansClient</c>), the client calls the shard grains through it: no second Orleans client, no gateway hop.
    /// Call this after registering Orleans. Otherwise it adds an Orleans client of its own that connects to the gateways
    /// of <see cref="CubbyClientOptions.Endpoints"/>, or of the silos in the membership table of
    /// <see cref="CubbyClientClusteringOptions.ConnectionString"/>, when the host starts (or on the first call without a host).
    /// </remarks>
    /// <param name="services">The services.</param>
    /// <param name="configure">Sets options, such as <c>o => o.Endpoints.Add("10.0.0.5:30000")</c>.</param>
    /// <returns>A builder to add <see cref="IDistributedCache"/> with <see cref="AddCubbyDistributedCache(ICubbyClientBuilder)"/>.</returns>
    public static ICubbyClientBuilder AddCubbyClient(this IServiceCollection services, Action<CubbyClientOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        if (services.Any(descriptor => descriptor.ServiceType == typeof(CubbyClient)))
        {
            if (configure is not null)
            {
                services.Configure(configure);
            }

            return new CubbyClientBuilder(services);
        }

        var runtime = services.Any(descriptor => descriptor.ServiceType == typeof(IGrainFactory)) ? ClientRuntime.Local : ClientRuntime.Gateway;
        var options = services.AddOptions<CubbyClientOptions>();

        // Bound from configuration when the host has one; a bare service collection (a console tool) may not.
        services.AddSingleton<IConfigureOptions<CubbyClientOptions>>(provider => new ConfigureNamedOptions<CubbyClientOptions>(
            Options.Options.DefaultName,
            o => BindConfiguration(provider.GetService<IConfiguration>(), o, runtime)));
        if (configure is not null)
        {
            options.Configure(configure);
        }

        options.ValidateOnStart();
        services.AddSingleton(runtime);
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<CubbyClientOptions>, CubbyClientOptionsValidator>());
        services.TryAddSingleton(TimeProvider.System);
        services.TryAddSingleton<ICubbySerializer>(provider => new SystemTextJsonCubbySerializer(provider.GetRequiredService<IOptions<CubbyClientOptions>>().Value.JsonSerializerOptions));
        if (!runtime.InProcess)
        {
            AddGatewayClient(services);
        }

        services.AddSingleton(provider =>
        {
            var options = provider.GetRequiredService<IOptions<CubbyClientOptions>>();
            var grains = provider.GetRequiredService<IGrainFactory>();
            var gateway = provider.GetService<GatewayConnection>();

            var time = provider.GetRequiredService<TimeProvider>();

            // Inside a silo's own process every call is local already; batches are for calls that cross the network.
            var live = gateway is not null && options.Value.CoalesceCalls ? LiveGateways.Find(provider) : null;
            if (live is not null)
            {
                provider.GetRequiredService<LearnedGateways>().OnChanged(live.Reread);
            }

            (NearCache, LeaseRenewals)? near = live is not null && options.Value.NearCache.Enabled ? NearCacheOf(provider, options.Value, grains, live, time) : null;
            var batches = live is not null
                ? new SiloBatches(
                    grains,
                    provider.GetRequiredService<IGatewayListProvider>(),
                    live,
                    options.Value.SlotCount,
                    traceCalls: provider.GetService<CubbyClientBuilderExtensions.DistributedTracingMarker>() is not null,
                    links: near is var (cache, _) ? cache.LinkTo : null)
                : null;
            return new CubbyClient(
                options, grains, gateway, provider.GetRequiredService<ICubbySerializer>(), time, batches, near, new GetOrCreateMetrics(provider.GetService<IMeterFactory>()));
        });
        services.TryAddSingleton<ICubbyClient>(provider => provider.GetRequiredService<CubbyClient>());
        return new CubbyClientBuilder(services);
    }

    /// <summary>The near cache and the renewals of its leases, the silos' readers made as Orleans object references.</summary>
    private static (NearCache, LeaseRenewals) NearCacheOf(IServiceProvider provider, CubbyClientOptions options, IGrainFactory grains, LiveGateways live, TimeProvider time)
    {
        var cache = new NearCache(
            options.NearCache,
            options.SlotCount,
            time,
            new NearCacheMetrics(provider.GetService<IMeterFactory>()),
            link => grains.CreateObjectReference<INearCacheReader>(link));
        return (cache, new LeaseRenewals(cache, gateway => SiloBatches.ServiceAt(grains, gateway), live));
    }

    /// <summary>Registers Cubby as the <see cref="IDistributedCache"/> (and <see cref="IBufferDistributedCache"/>).</summary>
    /// <param name="builder">From <see cref="AddCubbyClient"/>.</param>
    /// <returns>The same builder.</returns>
    public static ICubbyClientBuilder AddCubbyDistributedCache(this ICubbyClientBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.Services.AddCubbyDistributedCache();
        return builder;
    }

    /// <summary>Registers Cubby as the <see cref="IDistributedCache"/>; call <see cref="AddCubbyClient"/> too.</summary>
    /// <param name="services">The services.</param>
    /// <returns>The services.</returns>
    public static IServiceCollection AddCubbyDistributedCache(this IServiceCollection services)
    {
        ArgumentNullException.ThrowIfNull(services);
        services.RemoveAll<IDistributedCache>();
        services.TryAddSingleton(provider => new CubbyDistributedCache(
            provider.GetService<CubbyClient>() ?? throw new InvalidOperationException("Call services.AddCubbyClient(...) before AddCubbyDistributedCache().")));
        services.AddSingleton<IDistributedCache>(provider => provider.GetRequiredService<CubbyDistributedCache>());
        services.TryAddSingleton<IBufferDistributedCache>(provider => provider.GetRequiredService<CubbyDistributedCache>());
        return services;
    }

    /// <summary>
    /// An Orleans client of the client's own, whose start <see cref="GatewayConnection"/> owns: it starts with the host,
    /// or on the first call in a process without one, and the cluster, gateways and timeouts come from Cubby's options.
    /// </summary>
    private static void AddGatewayClient(IServiceCollection services)
    {
        var hostedBefore = services.Where(descriptor => descriptor.ServiceType == typeof(IHostedService)).ToHashSet();
        services.AddOrleansClient(client =>
        {
            // Calls time out and gateways are kept on real time whatever TimeProvider the app registers: an app that
            // fakes its clock in tests would otherwise leave a lost request waiting for a timeout that never comes.
            client.Services.AddKeyedSingleton(TimeProviderNames.Messaging, TimeProvider.System);
            client.Services.AddSingleton<ConnectFailures>();
            client.Services.AddSingleton<IClientConnectionRetryFilter, ConnectRetryFilter>();
            client.Services.AddSingleton<LearnedGateways>();
            client.Services.AddOptions<GatewayOptions>().Configure<IOptions<CubbyClientOptions>>((gateways, cubby) =>
                gateways.GatewayListRefreshPeriod = cubby.Value.GatewayRefreshInterval);
            client.Services.AddSingleton<IGatewayListProvider>(provider =>
                string.IsNullOrWhiteSpace(provider.GetRequiredService<IOptions<CubbyClientOptions>>().Value.Clustering.ConnectionString)
                    ? ActivatorUtilities.CreateInstance<EndpointGatewayList>(provider)
                    : ActivatorUtilities.CreateInstance<AdoNetGatewayListProvider>(provider));
            client.Services.AddOptions<ClusterOptions>().Configure<IOptions<CubbyClientOptions>>((cluster, cubby) =>
                (cluster.ClusterId, cluster.ServiceId) = (cubby.Value.ClusterId, cubby.Value.ServiceId));
            client.Services.AddOptions<ClientMessagingOptions>().Configure<IOptions<CubbyClientOptions>>((messaging, cubby) =>
                messaging.ResponseTimeout = cubby.Value.AttemptTimeout);
            client.Services.AddOptions<ClientConnectionOptions>().Configure<IOptions<CubbyClientOptions>>((connections, cubby) =>
                GatewayTls.Configure(connections, cubby.Value.Tls));
            client.Services.AddOptions<AdoNetClusteringClientOptions>().Configure<IOptions<CubbyClientOptions>>((ado, cubby) =>
                (ado.Invariant, ado.ConnectionString) = (NpgsqlInvariant, cubby.Value.Clustering.ConnectionString ?? string.Empty));
        });

        // Orleans would start its client as a hosted service of its own; the connection starts it instead, exactly once.
        foreach (var hosted in services.Where(descriptor => descriptor.ServiceType == typeof(IHostedService) && !hostedBefore.Contains(descriptor)).ToList())
        {
            services.Remove(hosted);
        }

        services.AddSingleton<GatewayConnection>();
        services.AddHostedService(provider => provider.GetRequiredService<GatewayConnection>());
    }

    private static void BindConfiguration(IConfiguration? configuration, CubbyClientOptions options, ClientRuntime runtime)
    {
        if (configuration is null)
        {
            return;
        }

        configuration.GetSection(CubbyClientOptions.SectionName).Bind(options);
        if (!runtime.InProcess && configuration.GetConnectionString(CubbyClientOptions.ConnectionStringName) is { Length: > 0 } connectionString)
        {
            CubbyConnectionString.ApplyTo(options, connectionString);
        }
    }
}
