using Microsoft.Extensions.DependencyInjection;
using ZiggyCreatures.Caching.Fusion;
using ZiggyCreatures.Caching.Fusion.Serialization.SystemTextJson;

namespace Cubby.Load.NearCache;

/// <summary>
/// FusionCache as its docs set up a multi-node app: RedisCache on Redis as the distributed level and the Redis
/// backplane telling the other nodes' memory level of each write. Entries live 5 minutes, as HybridCache's default.
/// </summary>
internal sealed class FusionStack : ICacheStack
{
    private readonly ServiceProvider _services;
    private readonly IFusionCache _cache;
    private readonly bool _asText;

    public FusionStack(int redisPort, bool asText)
    {
        _asText = asText;
        var configuration = $"127.0.0.1:{redisPort}";
        var services = new ServiceCollection();
        services.AddStackExchangeRedisCache(o => o.Configuration = configuration);
        services.AddFusionCache()
            .WithOptions(o => o.WaitForInitialBackplaneSubscribe = true)
            .WithDefaultEntryOptions(new FusionCacheEntryOptions { Duration = TimeSpan.FromMinutes(5) })
            .WithSerializer(new FusionCacheSystemTextJsonSerializer())
            .WithRegisteredDistributedCache()
            .WithStackExchangeRedisBackplane(o => o.Configuration = configuration);
        _services = services.BuildServiceProvider();
        _cache = _services.GetRequiredService<IFusionCache>();
    }

    public async ValueTask<long?> ReadAsync(string key) => _asText
        ? await _cache.GetOrDefaultAsync<string>(key).ConfigureAwait(false) is { } text ? VersionedValue.VersionOf(text) : null
        : await _cache.GetOrDefaultAsync<byte[]>(key).ConfigureAwait(false) is { } bytes ? VersionedValue.VersionOf(bytes) : null;

    public ValueTask WriteAsync(string key, long version) =>
        _asText ? _cache.SetAsync(key, VersionedValue.Text(version)) : _cache.SetAsync(key, VersionedValue.Bytes(version));

    public ValueTask DisposeAsync() => _services.DisposeAsync();
}
