using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Load.Workloads;

/// <summary>
/// Cubby as an ASP.NET Core app's <see cref="IDistributedCache"/> (<c>AddCubbyClient().AddCubbyDistributedCache()</c>),
/// with a sliding expiry that every read renews.
/// </summary>
internal sealed class DistributedCacheTarget : ICacheTarget
{
    private readonly ServiceProvider _services;
    private readonly IDistributedCache _cache;
    private readonly WorkloadData _data;
    private readonly DistributedCacheEntryOptions _options;

    public DistributedCacheTarget(int port, WorkloadData data)
    {
        _services = new ServiceCollection().AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{port}")).AddCubbyDistributedCache().Services.BuildServiceProvider();
        _cache = _services.GetRequiredService<IDistributedCache>();
        _data = data;
        _options = new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromMilliseconds(data.TimeToLiveMs) };
    }

    public ICacheCaller CreateCaller() => new Caller(this);

    public void Dispose() => _services.Dispose();

    private sealed class Caller(DistributedCacheTarget target) : ICacheCaller
    {
        public ValueTask SetAsync(int key) => new(target._cache.SetAsync(target._data.Keys[key], target._data.Value, target._options));

        public async ValueTask<bool> GetAsync(int key) =>
            await target._cache.GetAsync(target._data.Keys[key]).ConfigureAwait(false) is not null;
    }
}
