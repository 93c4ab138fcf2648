using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Cubby.Silo.Diagnostics;

/// <summary>
/// Silo-wide command counts by command and result, and the latency distribution. Connections
/// count in their own <see cref="CommandTally"/> and publish once per batch; readers (the meter, <c>/metrics</c>, the
/// series sampler) read the totals.
/// </summary>
internal sealed class CommandMetrics
{
    /// <summary>The name commands the silo does not know are counted under.</summary>
    public const string UnknownCommand = "unknown";

    private readonly long[] _results;
    private readonly long[] _latency = new long[LatencyBuckets.Count];
    private long _elapsedTicks;

    public CommandMetrics(IEnumerable<string> commandNames)
    {
        Names = [.. commandNames, UnknownCommand];
        _results = new long[Names.Count * 2];
    }

    /// <summary>Command names by index; the last is <see cref="UnknownCommand"/>.</summary>
    public IReadOnlyList<string> Names { get; }

    public int UnknownIndex => Names.Count - 1;

    /// <summary>Set once the meter exists; recorded only while someone listens (OpenTelemetry, dotnet-counters).</summary>
    public Histogram<double>? Duration { get; set; }

    public static int ResultIndex(int command, bool failed) => (command * 2) + (failed ? 1 : 0);

    public CommandTally CreateTally() => new(_results, _latency);

    public long Count(int command, bool failed) => Volatile.Read(ref _results[ResultIndex(command, failed)]);

    /// <summary>Every command run, whatever its result.</summary>
    public long Total()
    {
        long total = 0;
        for (var i = 0; i < _results.Length; i++)
        {
            total += Volatile.Read(ref _results[i]);
        }

        return total;
    }

    public double ElapsedSeconds => (double)Volatile.Read(ref _elapsedTicks) / Stopwatch.Frequency;

    /// <summary>Copies the latency bucket counts (cumulative since start) to <paramref name="destination"/>.</summary>
    public void CopyLatency(Span<long> destination)
    {
        for (var i = 0; i < _latency.Length; i++)
        {
            destination[i] = Volatile.Read(ref _latency[i]);
        }
    }

    public void Publish(CommandTally tally)
    {
        tally.Results.Publish();
        tally.Latency.Publish();
        if (tally.ElapsedTicks != 0)
        {
            Interlocked.Add(ref _elapsedTicks, tally.ElapsedTicks);
            tally.ElapsedTicks = 0;
        }
    }
}
