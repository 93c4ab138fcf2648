using System.Diagnostics;

namespace Cubby.Load.NearCache;

/// <summary>
/// Reads that returned a value older than one acknowledged before they began, from every worker's log: a read of
/// version v is stale when version v+1 had been acknowledged by the time it began, and its staleness is how long before.
/// </summary>
internal sealed record Staleness(long Reads, long Writes, long Misses, double Seconds, long Stale, long[] StaleBeyond, double MaxAgeMs, double WriteP50Us, double WriteP99Us)
{
    /// <summary>The ages, in milliseconds, <see cref="StaleBeyond"/> counts reads staler than.</summary>
    public static IReadOnlyList<double> Thresholds { get; } = [1, 10, 100, 1000];

    public static Staleness Of(IReadOnlyList<OperationLog> logs, int keys, double pushDelayMs)
    {
        var acked = new List<long>[keys];
        for (var key = 0; key < keys; key++)
        {
            acked[key] = [];
        }

        foreach (var (key, version, _, at) in logs.SelectMany(static log => log.Writes).OrderBy(static write => write.Version))
        {
            // Versions of a key are written one at a time, from 1 up: version v sits at index v - 1.
            if (acked[key].Count == version - 1)
            {
                acked[key].Add(at);
            }
        }

        var thresholds = Thresholds.Append(pushDelayMs).ToArray();
        var beyond = new long[thresholds.Length];
        long stale = 0;
        var maxAge = 0.0;
        foreach (var (key, version, began) in logs.SelectMany(static log => log.Reads))
        {
            var newer = acked[key];
            if (version < newer.Count && newer[(int)version] <= began)
            {
                stale++;
                var age = Stopwatch.GetElapsedTime(newer[(int)version], began).TotalMilliseconds;
                maxAge = Math.Max(maxAge, age);
                for (var i = 0; i < thresholds.Length; i++)
                {
                    if (age > thresholds[i])
                    {
                        beyond[i]++;
                    }
                }
            }
        }

        return new Staleness(
            logs.Sum(static log => (long)log.Reads.Count),
            logs.Sum(static log => (long)log.TimedWrites.Count()),
            logs.Sum(static log => log.Misses),
            logs.Max(static log => log.Seconds),
            stale,
            beyond,
            maxAge,
            WritePercentile(logs, 0.5),
            WritePercentile(logs, 0.99));
    }

    /// <summary>The write latency, in microseconds, that <paramref name="fraction"/> of the writes took at most.</summary>
    private static double WritePercentile(IReadOnlyList<OperationLog> logs, double fraction)
    {
        var latencies = logs.SelectMany(static log => log.TimedWrites).Select(static write => Stopwatch.GetElapsedTime(write.SentAt, write.AckedAt).TotalMicroseconds).Order().ToArray();
        return latencies.Length == 0 ? 0 : latencies[Math.Min(latencies.Length - 1, (int)(latencies.Length * fraction))];
    }

    /// <summary>Stale reads older than the measured push delay p99 (the last of <see cref="StaleBeyond"/>).</summary>
    public long BeyondPushDelay => StaleBeyond[^1];
}
