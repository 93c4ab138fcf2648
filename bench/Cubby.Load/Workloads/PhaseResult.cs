namespace Cubby.Load.Workloads;

/// <summary>What one closed-loop phase measured.</summary>
internal sealed record PhaseResult(long Operations, long Errors, long Misses, TimeSpan Elapsed, LatencyHistogram Latency, string? FirstError)
{
    public double OperationsPerSecond => Operations / Elapsed.TotalSeconds;
}
