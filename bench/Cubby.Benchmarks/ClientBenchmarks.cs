using BenchmarkDotNet.Attributes;
using Cubby.Client;
using Cubby.Silo.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Cubby.Benchmarks;

/// <summary>
/// One caller's round trip through Cubby's client to a silo in the same process over loopback: routing, encoding,
/// the multiplexed connection, the silo's command and the reply. Allocations include the silo's, as both run here.
/// </summary>
[MemoryDiagnoser]
public class ClientBenchmarks
{
    private const string PresentKey = "bench:present";
    private const string MissingKey = "bench:missing";

    private readonly byte[] _value = new byte[StoreData.ValueBytes];
    private readonly CacheEntryOptions _expiry = CacheEntryOptions.ExpiresIn(TimeSpan.FromMinutes(10));
    private WebApplication? _silo;
    private ServiceProvider? _services;
    private ICubbyClient _client = null!;

    /// <summary>Starts a silo on a free loopback port and connects a client to it.</summary>
    /// <returns>When both are ready.</returns>
    [GlobalSetup]
    public async Task StartAsync()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.AddCubbySilo(options =>
        {
            options.Host = "127.0.0.1";
            options.RespPort = 0;
            options.HttpPort = 0;
        });
        _silo = builder.Build();
        _silo.MapCubbySilo();
        await _silo.StartAsync().ConfigureAwait(false);
        var port = _silo.Services.GetRequiredService<SiloEndpoints>().Resp.Port;

        _services = new ServiceCollection().AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{port}")).Services.BuildServiceProvider();
        _client = _services.GetRequiredService<ICubbyClient>();
        await _client.PutAsync(PresentKey, _value, _expiry).ConfigureAwait(false);
    }

    /// <summary>Reads a present 1 KiB entry.</summary>
    /// <returns>The value.</returns>
    [Benchmark(Baseline = true)]
    public ValueTask<byte[]?> GetAsyncHit() => _client.GetAsync(PresentKey);

    /// <summary>Reads an absent key.</summary>
    /// <returns>Null.</returns>
    [Benchmark]
    public ValueTask<byte[]?> GetAsyncMiss() => _client.GetAsync(MissingKey);

    /// <summary>Overwrites the 1 KiB entry with a relative expiry.</summary>
    /// <returns>What the write did.</returns>
    [Benchmark]
    public ValueTask<WriteOutcome> PutAsyncOverwrite() => _client.PutAsync(PresentKey, _value, _expiry);

    /// <summary>Disconnects the client and stops the silo.</summary>
    /// <returns>When both are stopped.</returns>
    [GlobalCleanup]
    public async Task StopAsync()
    {
        if (_services is not null)
        {
            await _services.DisposeAsync().ConfigureAwait(false);
        }

        if (_silo is not null)
        {
            await _silo.StopAsync().ConfigureAwait(false);
            await _silo.DisposeAsync().ConfigureAwait(false);
        }
    }
}
