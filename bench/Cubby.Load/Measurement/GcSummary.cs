namespace Cubby.Load.Measurement;

/// <summary>Cubby's collections and pause time per workload, over rounds.</summary>
/// <remarks>MaxPauseMs: The longest single pause the silo reported in any round.</remarks>
internal sealed record GcSummary(Stat Gen0, Stat Gen1, Stat Gen2, Stat PauseMs, double MaxPauseMs);
