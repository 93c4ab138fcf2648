using System.Text;
using BenchmarkDotNet.Attributes;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Silo.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Cubby.Benchmarks;

/// <summary>
/// What reaching a shard through Orleans costs, against running a command on the shard directly
/// (<see cref="DispatchBenchmarks"/>): a typed <see cref="IShardGrain.Get"/> and the RESP relay
/// (<see cref="IShardGrain.Execute"/>) from outside any grain, on a one-silo Orleans host in this process with
/// Cubby's grains (<c>siloBuilder.AddCubby()</c>). Every call here stays on the silo, so this is Orleans' local call
/// path (no socket); a call to another silo adds a network round trip on top.
/// </summary>
[MemoryDiagnoser]
public class GrainCallBenchmarks : IDisposable
{
    private readonly IHost _host;
    private readonly IShardGrain _shard;
    private readonly byte[] _key = Encoding.UTF8.GetBytes("key:000042");
    private readonly byte[] _getFrame = Encoding.UTF8.GetBytes("*2\r\n$3\r\nGET\r\n$10\r\nkey:000042\r\n");

    /// <summary>Starts the silo and writes the key the calls read.</summary>
    public GrainCallBenchmarks()
    {
        _host = Host.CreateDefaultBuilder()
            .ConfigureLogging(static logging => logging.ClearProviders())
            .UseOrleans(static silo => silo
                .UseLocalhostClustering(siloPort: 0, gatewayPort: 0)
                .UseInMemoryReminderService()
                .AddCubby(static options => options.MaxMemoryBytes = 256L << 20))
            .Build();
        _host.Start();
        var grains = _host.Services.GetRequiredService<IGrainFactory>();
        _shard = grains.GetGrain<IShardGrain>(new ShardMap().SlotOf(_key));
        _shard.Set(_key, Encoding.UTF8.GetBytes(new string('v', StoreData.ValueBytes)), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always)
            .AsTask().GetAwaiter().GetResult();
    }

    /// <summary>A typed read of an existing 1 KiB value through the grain.</summary>
    /// <returns>The value's length.</returns>
    [Benchmark]
    public async Task<int> TypedGet() => (await _shard.Get(_key, slide: false).ConfigureAwait(false))!.Value.Length;

    /// <summary><c>GET</c> of the same value relayed as its RESP frame, the reply encoded by the grain.</summary>
    /// <returns>The reply's length.</returns>
    [Benchmark]
    public async Task<int> RelayedGet() => (await _shard.Execute(_getFrame, RespVersion.Resp2).ConfigureAwait(false)).Length;

    /// <summary>Stops the silo.</summary>
    public void Dispose()
    {
        _host.StopAsync().GetAwaiter().GetResult();
        _host.Dispose();
        GC.SuppressFinalize(this);
    }
}
