using Cubby.Client;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Load.NearCache;

/// <summary>Cubby's gateway client with its near cache on, as an app turns it on, with the given coherence.</summary>
internal sealed class CubbyNearStack : ICacheStack
{
    private readonly ServiceProvider _services;
    private readonly ICubbyClient _client;

    public CubbyNearStack(int gatewayPort, NearCacheCoherence coherence)
    {
        _services = new ServiceCollection()
            .AddCubbyClient(o =>
            {
                o.Endpoints.Add($"127.0.0.1:{gatewayPort}");
                o.NearCache.Enabled = true;
                o.NearCache.Coherence = coherence;
            })
            .Services.BuildServiceProvider();
        _client = _services.GetRequiredService<ICubbyClient>();
    }

    public async ValueTask<long?> ReadAsync(string key) => await _client.GetAsync(key).ConfigureAwait(false) is { } bytes ? VersionedValue.VersionOf(bytes) : null;

    public async ValueTask WriteAsync(string key, long version) => await _client.PutAsync(key, VersionedValue.Bytes(version)).ConfigureAwait(false);

    public string? Statistics =>
        ((CubbyClient)_client).NearCache is { } near
            ? $"near cache: {near.Metrics.Hits} hits, {near.Metrics.Misses} misses, {near.Metrics.Invalidations} invalidations ({near.Metrics.Updates} carried values kept), {near.Count} entries"
            : null;

    public ValueTask DisposeAsync() => AppServices.StopAsync(_services);
}
