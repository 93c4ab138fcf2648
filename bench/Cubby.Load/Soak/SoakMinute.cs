namespace Cubby.Load.Soak;

/// <summary>One minute of a soak: the load's calls and the silo's memory and collections in it.</summary>
internal sealed record SoakMinute(
    int Minute,
    long Calls,
    double P50Ms,
    double P99Ms,
    double MaxMs,
    long Errors,
    long Connects,
    double RssMiB,
    double UsedMemoryMiB,
    double GcPauseMs,
    long Gen2Collections,
    long Evicted,
    long Expired);
