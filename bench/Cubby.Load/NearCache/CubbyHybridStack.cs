using Cubby.Client;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Load.NearCache;

/// <summary>Cubby's own HybridCache (<c>AddCubbyHybridCache</c>), its local tier the near cache (strict), on a Cubby silo.</summary>
internal sealed class CubbyHybridStack : ICacheStack
{
    private readonly ServiceProvider _services;
    private readonly HybridCache _cache;

    public CubbyHybridStack(int gatewayPort)
    {
        var services = new ServiceCollection();
        services.AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{gatewayPort}")).AddCubbyHybridCache();
        _services = services.BuildServiceProvider();
        _cache = _services.GetRequiredService<HybridCache>();
    }

    // Every key is written before the clock starts, so the factory runs only for one that vanished.
    public ValueTask<byte[]?> ReadAsync(string key) => _cache.GetOrCreateAsync(key, static _ => ValueTask.FromResult<byte[]?>(null));

    public ValueTask WriteAsync(string key, byte[] value) => _cache.SetAsync(key, value);

    public string? Statistics =>
        _services.GetRequiredService<CubbyClient>() is { NearCache: { } near, Fills: var fills }
            ? $"local hits {fills.LocalHits}, remote hits {fills.RemoteHits}, misses {fills.Misses}, factory runs {fills.FactoryRuns}, joined waits {fills.JoinedWaits}; near cache: {near.Metrics.Hits} hits, {near.Metrics.Misses} misses, {near.Metrics.Invalidations} invalidations ({near.Metrics.Updates} carried values kept), {near.Count} entries"
            : null;

    public ValueTask DisposeAsync() => _services.DisposeAsync();
}
