namespace Cubby.Silo.Diagnostics;

/// <summary>One second of a silo's activity, as the dashboard charts it.</summary>
/// <param name="Time">When the second ended, in Unix milliseconds.</param>
/// <param name="OpsPerSecond">Commands run per second.</param>
/// <param name="HitRatio">Hits over lookups in the second; null when there were no lookups.</param>
/// <param name="P99Milliseconds">The 99th percentile command latency in the silo; 0 when no command ran.</param>
/// <param name="EvictionsPerSecond">Entries evicted per second.</param>
/// <param name="ExpirationsPerSecond">Entries expired per second.</param>
/// <param name="Keys">Entries held at the end of the second.</param>
/// <param name="MemoryBytes">Bytes charged to the memory budget at the end of the second.</param>
internal readonly record struct SeriesPoint(
    long Time,
    double OpsPerSecond,
    double? HitRatio,
    double P99Milliseconds,
    double EvictionsPerSecond,
    double ExpirationsPerSecond,
    long Keys,
    long MemoryBytes);

/// <summary>A slot and how many keyed commands ran on it per second over the recent window.</summary>
internal readonly record struct BusySlot(int Slot, double OpsPerSecond);
