using Cubby.Load.Measurement;

namespace Cubby.Load.Workloads;

/// <summary>Runs a closed-loop .NET workload: connect, fill (for reads), warm up, then measure for the set duration.</summary>
internal sealed class DotnetWorkloadRunner(HarnessOptions options)
{
    private readonly WorkloadData _client = new("client", options.Keys, options.ValueBytes, options.TimeToLiveMs);
    private readonly WorkloadData _stackExchange = new("se", options.Keys, options.ValueBytes, options.TimeToLiveMs);
    private readonly WorkloadData _distributed = new("distcache", options.Keys, options.ValueBytes, options.TimeToLiveMs);
    private readonly WorkloadData _redisCache = new("rediscache", options.Keys, options.ValueBytes, options.TimeToLiveMs);

    public async Task<Sample> RunAsync(WorkloadSpec workload, ServerProbe probe, int round)
    {
        using var target = await CreateTargetAsync(workload, probe).ConfigureAwait(false);
        if (workload.Operation == CacheOperation.Get)
        {
            await ClosedLoop.FillAsync(target, options.Keys, options.Callers).ConfigureAwait(false);
        }

        await ClosedLoop.RunAsync(target, workload.Operation, options.Callers, options.Keys, options.Warmup).ConfigureAwait(false);
        await probe.BeginAsync().ConfigureAwait(false);
        var phase = await ClosedLoop.RunAsync(target, workload.Operation, options.Callers, options.Keys, options.Duration).ConfigureAwait(false);
        var (cpu, resident, gc) = await probe.EndAsync().ConfigureAwait(false);
        return new Sample(
            round,
            phase.OperationsPerSecond,
            Milliseconds(phase.Latency.ValueAt(0.50)),
            null,
            Milliseconds(phase.Latency.ValueAt(0.99)),
            Milliseconds(phase.Latency.ValueAt(0.999)),
            phase.Operations,
            phase.Errors,
            phase.Misses,
            phase.Elapsed.TotalSeconds,
            resident,
            cpu,
            gc,
            phase.Errors > 0 ? $"{phase.Errors} errors, first: {phase.FirstError}" : null);
    }

    private static double Milliseconds(double nanoseconds) => nanoseconds / 1e6;

    private async Task<ICacheTarget> CreateTargetAsync(WorkloadSpec workload, ServerProbe probe) => workload.Kind switch
    {
        WorkloadKind.Client => new CubbyClientTarget(probe.GatewayPort, _client),
        WorkloadKind.DistributedCache => DistributedCacheTarget.Cubby(probe.GatewayPort, _distributed),
        WorkloadKind.RedisCache => DistributedCacheTarget.RedisCache(probe.Port, _redisCache),
        WorkloadKind.StackExchangeRedis => await StackExchangeRedisTarget.ConnectAsync(probe.Port, _stackExchange).ConfigureAwait(false),
        _ => throw new ArgumentOutOfRangeException(nameof(workload), workload.Kind, "Not a .NET workload."),
    };
}
