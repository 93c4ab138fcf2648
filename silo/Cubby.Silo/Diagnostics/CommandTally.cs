namespace Cubby.Silo.Diagnostics;

/// <summary>One connection's command results and latencies since its last publish to <see cref="CommandMetrics"/>.</summary>
internal sealed class CommandTally(int commandCount)
{
    public SparseCounts Results { get; } = new(commandCount * 2);

    public SparseCounts Latency { get; } = new(LatencyBuckets.Count);

    public long ElapsedTicks { get; set; }

    public void Record(int command, bool failed, long elapsedTicks)
    {
        Results.Increment(CommandMetrics.ResultIndex(command, failed));
        Latency.Increment(LatencyBuckets.Of(elapsedTicks));
        ElapsedTicks += elapsedTicks;
    }
}
