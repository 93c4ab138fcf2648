using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Load.NearCache;

/// <summary>HybridCache with its defaults, RedisCache on Redis as its L2.</summary>
internal sealed class HybridStack : ICacheStack
{
    private readonly ServiceProvider _services;
    private readonly HybridCache _cache;

    public HybridStack(int redisPort)
    {
        var services = new ServiceCollection();
        services.AddStackExchangeRedisCache(o => o.Configuration = $"127.0.0.1:{redisPort}");
        services.AddHybridCache();
        _services = services.BuildServiceProvider();
        _cache = _services.GetRequiredService<HybridCache>();
    }

    // Every key is written before the clock starts, so the factory runs only for one that vanished.
    public async ValueTask<long?> ReadAsync(string key) =>
        await _cache.GetOrCreateAsync(key, static _ => ValueTask.FromResult<byte[]?>(null)).ConfigureAwait(false) is { } bytes ? VersionedValue.VersionOf(bytes) : null;

    public ValueTask WriteAsync(string key, long version) => _cache.SetAsync(key, VersionedValue.Bytes(version));

    public ValueTask DisposeAsync() => _services.DisposeAsync();
}
