using System.Net;
using System.Text;
using BenchmarkDotNet.Attributes;
using Cubby.Grains.Hosting;
using Cubby.Sharding;
using Cubby.Silo.Clustering;
using Cubby.Silo.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Cubby.Benchmarks;

/// <summary>
/// What reaching a shard through Orleans costs, against running a command on the shard directly
/// (<see cref="DispatchBenchmarks"/>): a typed <see cref="IShardGrain.Get"/> from outside any grain, on a one-silo
/// Orleans host in this process with Cubby's grains (<c>siloBuilder.AddCubby()</c>). The call stays on the silo, so
/// this is Orleans' local call path (no socket); a call to another silo adds a network round trip on top. The RESP
/// relay (<see cref="Grains.IShardCommands.Run"/>) is the same call carrying the parsed arguments, plus the dispatch
/// <see cref="DispatchBenchmarks"/> measures; the load harness measures it end to end.
/// </summary>
[MemoryDiagnoser]
public class GrainCallBenchmarks : IDisposable
{
    private readonly IHost _host;
    private readonly IShardGrain _shard;
    private readonly byte[] _key = Encoding.UTF8.GetBytes("key:000042");

    /// <summary>Starts the silo and writes the key the calls read.</summary>
    public GrainCallBenchmarks()
    {
        _host = Host.CreateDefaultBuilder()
            .ConfigureLogging(static logging => logging.ClearProviders())
            .UseOrleans(static silo => silo
                .UseLocalhostClustering(FreePort.Or(0, IPAddress.Loopback), FreePort.Or(0, IPAddress.Loopback))
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

    /// <summary>Stops the silo.</summary>
    public void Dispose()
    {
        _host.StopAsync().GetAwaiter().GetResult();
        _host.Dispose();
        GC.SuppressFinalize(this);
    }
}
