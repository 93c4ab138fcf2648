namespace Cubby.Silo.Diagnostics;

/// <summary>One connection's command results and latencies since its last publish to <see cref="CommandMetrics"/>.</summary>
internal sealed class CommandTally(long[] results, long[] latency)
{
    public SparseCounts Results { get; } = new(results);

    public SparseCounts Latency { get; } = new(latency);

    public long ElapsedTicks { get; set; }

    public void Record(int command, bool failed, long elapsedTicks)
    {
        Results.Increment(CommandMetrics.ResultIndex(command, failed));
        Latency.Increment(LatencyBuckets.Of(elapsedTicks));
        ElapsedTicks += elapsedTicks;
    }
}
