using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Load.Workloads;

/// <summary>
/// An ASP.NET Core app's <see cref="IDistributedCache"/>, registered as the app would, with a sliding expiry that every
/// read renews: Cubby's (<c>AddCubbyClient().AddCubbyDistributedCache()</c>, through the silo's Orleans gateway) or
/// Microsoft's <c>AddStackExchangeRedisCache</c>, with the same calls, so the two compare as an app would switch caches.
/// </summary>
internal sealed class DistributedCacheTarget : ICacheTarget
{
    private readonly ServiceProvider _services;
    private readonly IDistributedCache _cache;
    private readonly WorkloadData _data;
    private readonly DistributedCacheEntryOptions _options;

    private DistributedCacheTarget(IServiceCollection services, WorkloadData data)
    {
        _services = services.BuildServiceProvider();
        _cache = _services.GetRequiredService<IDistributedCache>();
        _data = data;
        _options = new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromMilliseconds(data.TimeToLiveMs) };
    }

    /// <summary>Cubby's, connected to a silo's gateway.</summary>
    public static DistributedCacheTarget Cubby(int gatewayPort, WorkloadData data) =>
        new(new ServiceCollection().AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{gatewayPort}")).AddCubbyDistributedCache().Services, data);

    /// <summary><c>AddStackExchangeRedisCache</c>'s, connected to a server's RESP port.</summary>
    public static DistributedCacheTarget RedisCache(int port, WorkloadData data) =>
        new(new ServiceCollection().AddStackExchangeRedisCache(o => o.Configuration = $"127.0.0.1:{port},abortConnect=true,connectTimeout=10000"), data);

    public ICacheCaller CreateCaller() => new Caller(this);

    public void Dispose() => _services.Dispose();

    private sealed class Caller(DistributedCacheTarget target) : ICacheCaller
    {
        public async ValueTask SetAsync(int key) =>
            await target._cache.SetAsync(target._data.Keys[key], target._data.Value, target._options).ConfigureAwait(false);

        public async ValueTask<bool> GetAsync(int key) =>
            await target._cache.GetAsync(target._data.Keys[key]).ConfigureAwait(false) is not null;
    }
}
