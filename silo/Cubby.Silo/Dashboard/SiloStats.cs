using Cubby.Silo.Diagnostics;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Dashboard;

/// <summary>
/// One silo's own numbers for the dashboard: what it holds now, its recent series (as columns, oldest first) and its
/// busiest slots. A silo answers <c>CUBBY.LOCAL STATS seconds</c> with this as JSON.
/// </summary>
internal sealed record SiloStats(
    long Keys,
    long MemoryBytes,
    long MemoryLimitBytes,
    int Connections,
    SeriesColumns Series,
    IReadOnlyList<BusySlot> BusiestSlots)
{
    /// <summary>Most seconds of series a request may ask for.</summary>
    public const int MaxSeconds = SiloSeries.Capacity;

    public static SiloStats Of(SiloRuntime silo, int seconds) => new(
        silo.Figures.Entries,
        silo.Figures.MemoryUsed,
        silo.Figures.MemoryLimit,
        silo.Clients.Count,
        SeriesColumns.Of(silo.Series.Latest(seconds)),
        silo.Series.BusiestSlots);
}

/// <summary>A series as one array per measure, which is compact in JSON and what the charts draw from.</summary>
internal sealed record SeriesColumns(
    long[] Time,
    double[] Ops,
    double?[] HitRatio,
    double[] P99Ms,
    double[] Evictions,
    double[] Expirations,
    long[] Keys,
    long[] MemoryBytes)
{
    public static SeriesColumns Of(SeriesPoint[] points) => new(
        [.. points.Select(static p => p.Time)],
        [.. points.Select(static p => p.OpsPerSecond)],
        [.. points.Select(static p => p.HitRatio)],
        [.. points.Select(static p => p.P99Milliseconds)],
        [.. points.Select(static p => p.EvictionsPerSecond)],
        [.. points.Select(static p => p.ExpirationsPerSecond)],
        [.. points.Select(static p => p.Keys)],
        [.. points.Select(static p => p.MemoryBytes)]);
}
