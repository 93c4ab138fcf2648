using Cubby.Client;
using Cubby.Client.DependencyInjection;
using Cubby.Client.Hybrid;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.Caching.Memory;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

#pragma warning disable IDE0130 // Extension methods live in the DI namespace, where callers already look for them.
namespace Microsoft.Extensions.DependencyInjection;
#pragma warning restore IDE0130

/// <summary>Registers Cubby's own <see cref="HybridCache"/>.</summary>
public static class CubbyHybridCacheExtensions
{
    /// <summary>
    /// Registers Cubby's <see cref="HybridCache"/> as the app's: its local tier is the client's near cache, which the
    /// silos keep coherent (turned on here, for a gateway client), its tags are removed on every instance, and
    /// concurrent callers of this instance for one missing key share one factory run. HybridCache's own registrations
    /// apply: <see cref="HybridCacheOptions"/> (<c>MaximumPayloadBytes</c>, <c>MaximumKeyLength</c>,
    /// <c>DefaultEntryOptions</c>) and the serializers of <c>AddSerializer</c> and <c>AddSerializerFactory</c> on the
    /// builder this returns. Call it instead of <c>AddHybridCache</c>; calling <c>AddHybridCache</c> too changes nothing.
    /// </summary>
    /// <param name="builder">From <c>AddCubbyClient</c>.</param>
    /// <param name="configure">Sets HybridCache's options.</param>
    /// <returns>HybridCache's builder, to add serializers.</returns>
    public static IHybridCacheBuilder AddCubbyHybridCache(this ICubbyClientBuilder builder, Action<HybridCacheOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var services = builder.Services;
        var runtime = services.LastOrDefault(descriptor => descriptor.ServiceType == typeof(ClientRuntime))?.ImplementationInstance as ClientRuntime
            ?? throw new InvalidOperationException("Call services.AddCubbyClient(...) before AddCubbyHybridCache().");
        var hybrid = configure is null ? services.AddHybridCache() : services.AddHybridCache(configure);
        if (!runtime.InProcess)
        {
            services.Configure<CubbyClientOptions>(static options => options.NearCache.Enabled = true);
        }

        services.TryAddSingleton(provider => new HybridSerializers(provider));
        services.TryAddSingleton(provider => new CubbyHybridCache(
            provider.GetRequiredService<CubbyClient>(),
            provider.GetRequiredService<HybridSerializers>(),
            provider.GetRequiredService<IMemoryCache>(),
            provider.GetRequiredService<IOptions<HybridCacheOptions>>(),
            provider.GetRequiredService<TimeProvider>(),
            (provider.GetService<ILoggerFactory>() ?? NullLoggerFactory.Instance).CreateLogger<CubbyHybridCache>()));
        services.RemoveAll<HybridCache>();
        services.AddSingleton<HybridCache>(provider => provider.GetRequiredService<CubbyHybridCache>());
        return hybrid;
    }
}
