using BenchmarkDotNet.Attributes;
using Cubby.Client;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Caching.Memory;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Benchmarks;

/// <summary>
/// A near-cache hit beside what it saves and what it is built on: a Get of a kept 1 KiB entry through a client with
/// its near cache, the same Get through a client without one (a round trip to a silo in this process over loopback),
/// and a <see cref="MemoryCache"/> Get of the same array, the baseline.
/// </summary>
[MemoryDiagnoser]
public class NearCacheBenchmarks : IDisposable
{
    private const string Key = "bench:near";

    private readonly byte[] _value = new byte[StoreData.ValueBytes];
    private readonly MemoryCache _memory = new(new MemoryCacheOptions());
    private WebApplication? _silo;
    private ServiceProvider? _nearApp;
    private ServiceProvider? _remoteApp;
    private ICubbyClient _near = null!;
    private ICubbyClient _remote = null!;

    /// <summary>Starts a silo, writes the entry, and reads it through the near-cache client until it is kept.</summary>
    /// <returns>When the near cache serves the entry.</returns>
    [GlobalSetup]
    public async Task StartAsync()
    {
        _silo = await InProcessSilo.StartAsync(dashboard: false).ConfigureAwait(false);
        var gatewayPort = _silo.Services.GetRequiredService<Orleans.Runtime.ILocalSiloDetails>().GatewayAddress.Endpoint.Port;
        _nearApp = new ServiceCollection().AddCubbyClient(o =>
        {
            o.Endpoints.Add($"127.0.0.1:{gatewayPort}");
            o.NearCache.Enabled = true;
        }).Services.BuildServiceProvider();
        _remoteApp = new ServiceCollection().AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{gatewayPort}")).Services.BuildServiceProvider();
        _near = _nearApp.GetRequiredService<ICubbyClient>();
        _remote = _remoteApp.GetRequiredService<ICubbyClient>();
        await _remote.PutAsync(Key, _value).ConfigureAwait(false);
        _memory.Set(Key, _value);

        var cache = ((CubbyClient)_near).NearCache!;
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (true)
        {
            var hits = cache.Metrics.Hits;
            await _near.GetAsync(Key).ConfigureAwait(false);
            if (cache.Metrics.Hits > hits)
            {
                break;
            }

            if (DateTime.UtcNow > deadline)
            {
                throw new InvalidOperationException("The near cache never kept the entry.");
            }

            await Task.Delay(10).ConfigureAwait(false);
        }
    }

    /// <summary>A <see cref="MemoryCache"/> Get of the array.</summary>
    /// <returns>The value.</returns>
    [Benchmark(Baseline = true)]
    public byte[]? MemoryCacheGet() => _memory.TryGetValue(Key, out var value) ? (byte[]?)value : null;

    /// <summary>A Get the near cache serves.</summary>
    /// <returns>The value.</returns>
    [Benchmark]
    public ValueTask<byte[]?> NearCacheGetAsyncHit() => _near.GetAsync(Key);

    /// <summary>The same Get through a client without a near cache: a round trip to the silo.</summary>
    /// <returns>The value.</returns>
    [Benchmark]
    public ValueTask<byte[]?> RemoteGetAsyncHit() => _remote.GetAsync(Key);

    /// <summary>Disconnects the clients and stops the silo.</summary>
    /// <returns>When all are stopped.</returns>
    [GlobalCleanup]
    public async Task StopAsync()
    {
        foreach (var app in new[] { _nearApp, _remoteApp })
        {
            if (app is not null)
            {
                await app.DisposeAsync().ConfigureAwait(false);
            }
        }

        if (_silo is not null)
        {
            await _silo.StopAsync().ConfigureAwait(false);
            await _silo.DisposeAsync().ConfigureAwait(false);
        }

    }

    /// <summary>Frees the baseline's cache.</summary>
    public void Dispose()
    {
        _memory.Dispose();
        GC.SuppressFinalize(this);
    }
}
