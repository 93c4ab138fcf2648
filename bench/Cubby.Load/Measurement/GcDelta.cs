namespace Cubby.Load.Measurement;

/// <summary>What the silo's <c>INFO gc</c> section changed by over a workload.</summary>
/// <remarks>MaxPauseMs: The longest pause among the silo's recent pauses (its INFO keeps the last 4096).</remarks>
internal sealed record GcDelta(long Gen0, long Gen1, long Gen2, double PauseMs, double MaxPauseMs);
