namespace Cubby.Load.Measurement;

/// <summary>One workload on one server, over every round: medians with min and max, and the rounds themselves.</summary>
internal sealed record ResultRow(
    string Workload,
    string Server,
    string Tool,
    Stat? OpsPerSecond,
    Stat? P50Ms,
    Stat? P95Ms,
    Stat? P99Ms,
    Stat? P999Ms,
    Stat? ResidentMiB,
    Stat? CpuSeconds,
    Stat? CpuMicrosecondsPerOp,
    GcSummary? Gc,
    long Errors,
    long Misses,
    IReadOnlyList<Sample> Rounds)
{
    public static ResultRow From(string workload, ServerKind server, string tool, IReadOnlyList<Sample> rounds)
    {
        var ok = rounds.Where(r => r.Error is null || r.OpsPerSecond > 0).ToArray();
        var gc = ok.Where(r => r.Gc is not null).Select(r => r.Gc!).ToArray();
        return new ResultRow(
            workload,
            server.ToString().ToLowerInvariant(),
            tool,
            Stat.Of(ok.Select(r => (double?)r.OpsPerSecond)),
            Stat.Of(ok.Select(r => (double?)r.P50Ms)),
            Stat.Of(ok.Select(r => r.P95Ms)),
            Stat.Of(ok.Select(r => (double?)r.P99Ms)),
            Stat.Of(ok.Select(r => r.P999Ms)),
            Stat.Of(ok.Select(r => (double?)(r.ResidentBytes / (1024.0 * 1024.0)))),
            Stat.Of(ok.Select(r => (double?)r.CpuSeconds)),
            Stat.Of(ok.Select(r => r.Operations > 0 ? r.CpuSeconds * 1e6 / r.Operations : (double?)null)),
            gc.Length == 0 ? null : new GcSummary(
                Stat.Of(gc.Select(g => (double?)g.Gen0))!,
                Stat.Of(gc.Select(g => (double?)g.Gen1))!,
                Stat.Of(gc.Select(g => (double?)g.Gen2))!,
                Stat.Of(gc.Select(g => (double?)g.PauseMs))!,
                gc.Max(g => g.MaxPauseMs)),
            rounds.Sum(r => r.Errors),
            rounds.Sum(r => r.Misses),
            rounds);
    }
}
