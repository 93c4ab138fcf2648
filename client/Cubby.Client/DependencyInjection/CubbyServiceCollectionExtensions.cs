using Cubby.Client;
using Cubby.Client.Caching;
using Cubby.Client.DependencyInjection;
using Cubby.Client.Serialization;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

#pragma warning disable IDE0130 // Extension methods live in the DI namespace, where callers already look for them.
namespace Microsoft.Extensions.DependencyInjection;
#pragma warning restore IDE0130

/// <summary>Registers Cubby's client in a service collection.</summary>
public static class CubbyServiceCollectionExtensions
{
    /// <summary>
    /// Adds <see cref="ICubbyClient"/>, configured from the <c>Cubby:Client</c> configuration section and the
    /// <c>ConnectionStrings:cubby</c> connection string (<see cref="CubbyClientOptions.ConnectionStringName"/>), then by
    /// <paramref name="configure"/>, validated when the host starts.
    /// </summary>
    /// <param name="services">The services.</param>
    /// <param name="configure">Sets options, such as <c>o => o.Endpoints.Add("127.0.0.1:6390")</c>.</param>
    /// <returns>A builder to add <see cref="IDistributedCache"/> with <see cref="AddCubbyDistributedCache(ICubbyClientBuilder)"/>.</returns>
    public static ICubbyClientBuilder AddCubbyClient(this IServiceCollection services, Action<CubbyClientOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        var options = services.AddOptions<CubbyClientOptions>();

        // Bound from configuration when the host has one; a bare service collection (a console tool) may not.
        services.AddSingleton<IConfigureOptions<CubbyClientOptions>>(provider => new ConfigureNamedOptions<CubbyClientOptions>(
            Options.Options.DefaultName,
            o => BindConfiguration(provider.GetService<IConfiguration>(), o)));
        if (configure is not null)
        {
            options.Configure(configure);
        }

        options.ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<CubbyClientOptions>, CubbyClientOptionsValidator>());
        services.TryAddSingleton(TimeProvider.System);
        services.TryAddSingleton<ICubbySerializer>(provider => new SystemTextJsonCubbySerializer(provider.GetRequiredService<IOptions<CubbyClientOptions>>().Value.JsonSerializerOptions));
        services.TryAddSingleton(provider => new CubbyClient(
            provider.GetRequiredService<IOptions<CubbyClientOptions>>(),
            provider.GetRequiredService<ICubbySerializer>(),
            provider.GetService<ILoggerFactory>(),
            provider.GetRequiredService<TimeProvider>()));
        services.TryAddSingleton<ICubbyClient>(provider => provider.GetRequiredService<CubbyClient>());
        return new CubbyClientBuilder(services);
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

    private static void BindConfiguration(IConfiguration? configuration, CubbyClientOptions options)
    {
        if (configuration is null)
        {
            return;
        }

        configuration.GetSection(CubbyClientOptions.SectionName).Bind(options);
        if (configuration.GetConnectionString(CubbyClientOptions.ConnectionStringName) is { Length: > 0 } connectionString)
        {
            CubbyConnectionString.ApplyTo(options, connectionString);
        }
    }
}
