using Cubby.Client;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Load.NearCache;

/// <summary>
/// Cubby's own HybridCache (<c>AddCubbyHybridCache</c>), its local tier the near cache (strict), on a Cubby silo; values
/// as <c>byte[]</c>, which HybridCache copies for each read, or as strings, which it does not.
/// </summary>
internal sealed class CubbyHybridStack : ICacheStack
{
    private readonly ServiceProvider _services;
    private readonly HybridCache _cache;
    private readonly bool _asText;

    public CubbyHybridStack(int gatewayPort, bool asText)
    {
        var services = new ServiceCollection();
        services.AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{gatewayPort}")).AddCubbyHybridCache();
        _services = services.BuildServiceProvider();
        _cache = _services.GetRequiredService<HybridCache>();
        _asText = asText;
    }

    // Every key is written before the clock starts, so the factory runs only for one that vanished.
    public async ValueTask<long?> ReadAsync(string key) => _asText
        ? await _cache.GetOrCreateAsync(key, static _ => ValueTask.FromResult<string?>(null)).ConfigureAwait(false) is { } text ? VersionedValue.VersionOf(text) : null
        : await _cache.GetOrCreateAsync(key, static _ => ValueTask.FromResult<byte[]?>(null)).ConfigureAwait(false) is { } bytes ? VersionedValue.VersionOf(bytes) : null;

    public ValueTask WriteAsync(string key, long version) =>
        _asText ? _cache.SetAsync(key, VersionedValue.Text(version)) : _cache.SetAsync(key, VersionedValue.Bytes(version));

    public string? Statistics =>
        _services.GetRequiredService<CubbyClient>() is { NearCache: { } near, Fills: var fills }
            ? $"local hits {fills.LocalHits}, remote hits {fills.RemoteHits}, misses {fills.Misses}, factory runs {fills.FactoryRuns}, joined waits {fills.JoinedWaits}; near cache: {near.Metrics.Hits} hits, {near.Metrics.Misses} misses, {near.Metrics.Invalidations} invalidations ({near.Metrics.Updates} carried values kept), {near.Count} entries"
            : null;

    public ValueTask DisposeAsync() => AppServices.StopAsync(_services);
}
