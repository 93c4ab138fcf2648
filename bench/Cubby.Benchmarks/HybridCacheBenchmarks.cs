using System.ComponentModel;
using BenchmarkDotNet.Attributes;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Benchmarks;

/// <summary>
/// A local hit of <see cref="HybridCache"/>: Cubby's (<c>AddCubbyHybridCache</c>, its local tier the coherent near
/// cache) against Microsoft's default one (<c>AddHybridCache</c>, in-memory L1, with Cubby as its L2), for an
/// immutable record kept as an object, a mutable one deserialized per hit, and an entry carrying two tags.
/// </summary>
[MemoryDiagnoser]
public class HybridCacheBenchmarks : IDisposable
{
    private static readonly HybridCacheEntryOptions Minutes = new() { Expiration = TimeSpan.FromMinutes(30), LocalCacheExpiration = TimeSpan.FromMinutes(30) };
    private static readonly string[] Tags = ["catalog", "prices"];
    private static readonly Func<CancellationToken, ValueTask<FrozenProduct>> NoFrozen = static _ => throw new InvalidOperationException("miss");
    private static readonly Func<CancellationToken, ValueTask<Product>> NoProduct = static _ => throw new InvalidOperationException("miss");

    private WebApplication? _silo;
    private ServiceProvider? _cubbyApp;
    private ServiceProvider? _defaultApp;
    private HybridCache _cubby = null!;
    private HybridCache _default = null!;

    /// <summary>Starts a silo, writes the entries through both caches, and reads them until each is a local hit.</summary>
    /// <returns>When every entry is a local hit.</returns>
    [GlobalSetup]
    public async Task StartAsync()
    {
        _silo = await InProcessSilo.StartAsync(dashboard: false).ConfigureAwait(false);
        var gateway = $"127.0.0.1:{_silo.Services.GetRequiredService<Orleans.Runtime.ILocalSiloDetails>().GatewayAddress.Endpoint.Port}";
        var cubby = new ServiceCollection();
        cubby.AddCubbyClient(o => o.Endpoints.Add(gateway)).AddCubbyHybridCache();
        _cubbyApp = cubby.BuildServiceProvider();
        var standard = new ServiceCollection();
        standard.AddCubbyClient(o => o.Endpoints.Add(gateway)).AddCubbyDistributedCache();
        standard.AddHybridCache();
        _defaultApp = standard.BuildServiceProvider();
        _cubby = _cubbyApp.GetRequiredService<HybridCache>();
        _default = _defaultApp.GetRequiredService<HybridCache>();
        // Each cache its own keys: the two store entries in formats of their own.
        foreach (var (cache, prefix) in new[] { (_cubby, "cubby"), (_default, "default") })
        {
            await cache.SetAsync($"{prefix}:frozen", new FrozenProduct(1, "frozen", 9.5m), Minutes).ConfigureAwait(false);
            await cache.SetAsync($"{prefix}:mutable", new Product(2, "mutable", 9.5m), Minutes).ConfigureAwait(false);
            await cache.SetAsync($"{prefix}:tagged", new FrozenProduct(3, "tagged", 9.5m), Minutes, Tags).ConfigureAwait(false);
        }

        // Cubby's keeps a copy once a read was tracked; one read through the cluster, then local hits.
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (!await IsLocalAsync().ConfigureAwait(false))
        {
            if (DateTime.UtcNow > deadline)
            {
                throw new InvalidOperationException("Cubby's HybridCache never kept the entries.");
            }

            await Task.Delay(10).ConfigureAwait(false);
        }
    }

    /// <summary>The default HybridCache's L1 hit of an immutable record.</summary>
    /// <returns>The value.</returns>
    [Benchmark(Baseline = true)]
    public ValueTask<FrozenProduct> DefaultImmutableHit() => _default.GetOrCreateAsync("default:frozen", NoFrozen, Minutes);

    /// <summary>Cubby's local hit of an immutable record.</summary>
    /// <returns>The value.</returns>
    [Benchmark]
    public ValueTask<FrozenProduct> CubbyImmutableHit() => _cubby.GetOrCreateAsync("cubby:frozen", NoFrozen, Minutes);

    /// <summary>The default HybridCache's L1 hit of a mutable record (deserialized per hit).</summary>
    /// <returns>The value.</returns>
    [Benchmark]
    public ValueTask<Product> DefaultMutableHit() => _default.GetOrCreateAsync("default:mutable", NoProduct, Minutes);

    /// <summary>Cubby's local hit of a mutable record (deserialized per hit).</summary>
    /// <returns>The value.</returns>
    [Benchmark]
    public ValueTask<Product> CubbyMutableHit() => _cubby.GetOrCreateAsync("cubby:mutable", NoProduct, Minutes);

    /// <summary>The default HybridCache's L1 hit of an immutable record with two tags.</summary>
    /// <returns>The value.</returns>
    [Benchmark]
    public ValueTask<FrozenProduct> DefaultTaggedHit() => _default.GetOrCreateAsync("default:tagged", NoFrozen, Minutes, Tags);

    /// <summary>Cubby's local hit of an immutable record with two tags.</summary>
    /// <returns>The value.</returns>
    [Benchmark]
    public ValueTask<FrozenProduct> CubbyTaggedHit() => _cubby.GetOrCreateAsync("cubby:tagged", NoFrozen, Minutes, Tags);

    /// <summary>Disconnects the clients and stops the silo.</summary>
    [GlobalCleanup]
    public void Dispose()
    {
        _cubbyApp?.Dispose();
        _defaultApp?.Dispose();
        _silo?.StopAsync().GetAwaiter().GetResult();
        _silo?.DisposeAsync().AsTask().GetAwaiter().GetResult();
        GC.SuppressFinalize(this);
    }

    private async Task<bool> IsLocalAsync()
    {
        var client = (Client.CubbyClient)_cubbyApp!.GetRequiredService<Client.ICubbyClient>();
        var sent = client.Batches!.Batchers.Sum(static batcher => batcher.OperationsSent);
        await CubbyImmutableHit().ConfigureAwait(false);
        await CubbyMutableHit().ConfigureAwait(false);
        await CubbyTaggedHit().ConfigureAwait(false);
        return client.Batches.Batchers.Sum(static batcher => batcher.OperationsSent) == sent;
    }

    /// <summary>A product HybridCache may share between callers.</summary>
    /// <param name="Id">Its id.</param>
    /// <param name="Name">Its name.</param>
    /// <param name="Price">Its price.</param>
    [ImmutableObject(true)]
    public sealed record FrozenProduct(int Id, string Name, decimal Price);

    /// <summary>A product each caller gets its own copy of.</summary>
    /// <param name="Id">Its id.</param>
    /// <param name="Name">Its name.</param>
    /// <param name="Price">Its price.</param>
    public sealed record Product(int Id, string Name, decimal Price);
}
