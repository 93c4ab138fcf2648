namespace Cubby.Load.Measurement;

/// <summary>One workload on one server in one round.</summary>
/// <remarks>P95Ms: redis-benchmark's p95 (it reports no p99.9). P999Ms: The harness's own histogram's p99.9 (.NET workloads). CpuSeconds: The server's user + system CPU time during the measured part. ResidentBytes: The server's VmRSS right after the workload. Gc: Cubby only: collections and pause time during the measured part. Error: Why the workload failed, if it did.</remarks>
internal sealed record Sample(
    int Round,
    double OpsPerSecond,
    double P50Ms,
    double? P95Ms,
    double P99Ms,
    double? P999Ms,
    long Operations,
    long Errors,
    long Misses,
    double Seconds,
    long ResidentBytes,
    double CpuSeconds,
    GcDelta? Gc,
    string? Error)
{
    /// <summary>The server died during this workload (stopped from outside the harness) and it was measured again on a fresh one.</summary>
    public bool ServerRestarted { get; init; }
}
