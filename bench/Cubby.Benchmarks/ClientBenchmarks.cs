using BenchmarkDotNet.Attributes;
using Cubby.Client;
using Cubby.Silo.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Cubby.Benchmarks;

/// <summary>
/// One caller's round trip through Cubby's client to a silo in the same process: through the silo's Orleans gateway
/// over loopback (an app's client), and from inside the silo's host (co-hosted: the silo's own grain factory, no
/// socket). Allocations include the silo's, as both run here. <see cref="Dashboard"/> shows what the Orleans
/// dashboard's grain-call filter costs each call while nobody watches (it profiles only while the dashboard is open).
/// </summary>
[MemoryDiagnoser]
public class ClientBenchmarks
{
    private const string PresentKey = "bench:present";
    private const string MissingKey = "bench:missing";

    private readonly byte[] _value = new byte[StoreData.ValueBytes];
    private readonly CacheEntryOptions _expiry = CacheEntryOptions.ExpiresIn(TimeSpan.FromMinutes(10));
    private WebApplication? _silo;
    private ServiceProvider? _app;
    private ICubbyClient _gateway = null!;
    private IDistributedCache _gatewayCache = null!;
    private ICubbyClient _coHosted = null!;

    /// <summary>Whether the silo serves the Orleans dashboard (<c>Cubby:Dashboard:Enabled</c>, off by default).</summary>
    [Params(true, false)]
    public bool Dashboard { get; set; } = true;

    /// <summary>Starts a silo on free loopback ports, with a co-hosted client, and connects a gateway client to it.</summary>
    /// <returns>When both are ready.</returns>
    [GlobalSetup]
    public async Task StartAsync()
    {
        _silo = await InProcessSilo.StartAsync(Dashboard, static services => services.AddCubbyClient()).ConfigureAwait(false);
        _coHosted = _silo.Services.GetRequiredService<ICubbyClient>();
        var gatewayPort = _silo.Services.GetRequiredService<Orleans.Runtime.ILocalSiloDetails>().GatewayAddress.Endpoint.Port;

        _app = new ServiceCollection().AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{gatewayPort}")).AddCubbyDistributedCache().Services.BuildServiceProvider();
        _gateway = _app.GetRequiredService<ICubbyClient>();
        _gatewayCache = _app.GetRequiredService<IDistributedCache>();
        await _gateway.PutAsync(PresentKey, _value, _expiry).ConfigureAwait(false);
    }

    /// <summary>Reads a present 1 KiB entry through the gateway.</summary>
    /// <returns>The value.</returns>
    [Benchmark(Baseline = true)]
    public ValueTask<byte[]?> GatewayGetAsyncHit() => _gateway.GetAsync(PresentKey);

    /// <summary>Reads a present 1 KiB entry through the gateway with <c>IDistributedCache.GetAsync</c>.</summary>
    /// <returns>The value.</returns>
    [Benchmark]
    public Task<byte[]?> GatewayDistributedCacheGetAsyncHit() => _gatewayCache.GetAsync(PresentKey);

    /// <summary>Reads an absent key through the gateway.</summary>
    /// <returns>Null.</returns>
    [Benchmark]
    public ValueTask<byte[]?> GatewayGetAsyncMiss() => _gateway.GetAsync(MissingKey);

    /// <summary>Overwrites the 1 KiB entry with a relative expiry through the gateway.</summary>
    /// <returns>What the write did.</returns>
    [Benchmark]
    public ValueTask<WriteOutcome> GatewayPutAsyncOverwrite() => _gateway.PutAsync(PresentKey, _value, _expiry);

    /// <summary>Reads a present 1 KiB entry from inside the silo's host.</summary>
    /// <returns>The value.</returns>
    [Benchmark]
    public ValueTask<byte[]?> CoHostedGetAsyncHit() => _coHosted.GetAsync(PresentKey);

    /// <summary>Disconnects the client and stops the silo.</summary>
    /// <returns>When both are stopped.</returns>
    [GlobalCleanup]
    public async Task StopAsync()
    {
        if (_app is not null)
        {
            await _app.DisposeAsync().ConfigureAwait(false);
        }

        if (_silo is not null)
        {
            await _silo.StopAsync().ConfigureAwait(false);
            await _silo.DisposeAsync().ConfigureAwait(false);
        }
    }
}
