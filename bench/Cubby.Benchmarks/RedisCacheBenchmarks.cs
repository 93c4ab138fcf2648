using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using BenchmarkDotNet.Attributes;
using Cubby.Client;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Benchmarks;

/// <summary>
/// One caller's <c>IDistributedCache.GetAsync</c> hit of a 1 KiB value: Cubby's through a silo's Orleans gateway
/// over loopback (the silo in this process, dashboard off; allocations include the silo's), against
/// <c>AddStackExchangeRedisCache</c> on a redis-server started on loopback for the run.
/// </summary>
[MemoryDiagnoser]
public class RedisCacheBenchmarks
{
    private const string Key = "bench:present";

    private readonly byte[] _value = new byte[StoreData.ValueBytes];
    private WebApplication? _silo;
    private Process? _redis;
    private ServiceProvider? _cubbyApp;
    private ServiceProvider? _redisApp;
    private IDistributedCache _cubby = null!;
    private IDistributedCache _redisCache = null!;

    /// <summary>Starts the silo and redis-server, connects both caches and writes the entry to each.</summary>
    /// <returns>When both are ready.</returns>
    [GlobalSetup]
    public async Task StartAsync()
    {
        _silo = await InProcessSilo.StartAsync(dashboard: false).ConfigureAwait(false);
        var gatewayPort = _silo.Services.GetRequiredService<Orleans.Runtime.ILocalSiloDetails>().GatewayAddress.Endpoint.Port;
        _cubbyApp = new ServiceCollection().AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{gatewayPort}")).AddCubbyDistributedCache().Services.BuildServiceProvider();
        _cubby = _cubbyApp.GetRequiredService<IDistributedCache>();

        var redisPort = FreePort();
        _redis = Process.Start(new ProcessStartInfo("redis-server", $"--port {redisPort} --bind 127.0.0.1 --save \"\" --appendonly no")
        {
            RedirectStandardOutput = true,
            UseShellExecute = false,
        }) ?? throw new InvalidOperationException("redis-server did not start; install it (apt-get install redis-server).");
        _redisApp = new ServiceCollection().AddStackExchangeRedisCache(o => o.Configuration = $"127.0.0.1:{redisPort},abortConnect=false,connectRetry=20").BuildServiceProvider();
        _redisCache = _redisApp.GetRequiredService<IDistributedCache>();

        var options = new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromMinutes(30) };
        await _cubby.SetAsync(Key, _value, options).ConfigureAwait(false);
        await _redisCache.SetAsync(Key, _value, options).ConfigureAwait(false);
    }

    /// <summary>A hit through AddStackExchangeRedisCache on Redis (HMGET, then EXPIRE for the sliding window).</summary>
    /// <returns>The value.</returns>
    [Benchmark(Baseline = true)]
    public Task<byte[]?> RedisCacheGetAsyncHit() => _redisCache.GetAsync(Key);

    /// <summary>A hit through Cubby's IDistributedCache (one shard operation that reads and renews in one turn).</summary>
    /// <returns>The value.</returns>
    [Benchmark]
    public Task<byte[]?> CubbyGetAsyncHit() => _cubby.GetAsync(Key);

    /// <summary>Disconnects both clients, stops redis-server and the silo.</summary>
    /// <returns>When all are stopped.</returns>
    [GlobalCleanup]
    public async Task StopAsync()
    {
        if (_cubbyApp is not null)
        {
            await _cubbyApp.DisposeAsync().ConfigureAwait(false);
        }

        if (_redisApp is not null)
        {
            await _redisApp.DisposeAsync().ConfigureAwait(false);
        }

        if (_redis is { HasExited: false })
        {
            _redis.Kill();
            await _redis.WaitForExitAsync().ConfigureAwait(false);
        }

        _redis?.Dispose();
        if (_silo is not null)
        {
            await _silo.StopAsync().ConfigureAwait(false);
            await _silo.DisposeAsync().ConfigureAwait(false);
        }
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
