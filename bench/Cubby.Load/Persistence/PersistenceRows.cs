namespace Cubby.Load.Persistence;

/// <summary>
/// One server's measured SET run: redis-benchmark's ops/s and latencies, and what the server process used meanwhile
/// (its CPU, that of the forks it reaped, the bytes it had written to storage).
/// </summary>
internal sealed record SetRow(string Server, double Rps, double P50, double P99, long Requests, double CpuSeconds, double ChildCpuSeconds, long WrittenBytes)
{
    public double CpuMicrosecondsPerOperation => CpuSeconds * 1e6 / Requests;

    public double ChildCpuMicrosecondsPerOperation => ChildCpuSeconds * 1e6 / Requests;

    public double WrittenBytesPerOperation => (double)WrittenBytes / Requests;
}

/// <summary>
/// One start of a server on a folder: how it had been stopped, what it found there, and the time from just before its
/// process started until it answered PING and until DBSIZE counted <see cref="Expected"/> entries.
/// </summary>
/// <remarks>ReportedSeconds: the load time the server itself reports (Cubby's <c>cubby_load_ms</c>), when it does.</remarks>
internal sealed record LoadRow(
    string Server, string StoppedBy, DiskUse Files, TimeSpan UntilPing, TimeSpan UntilLoaded, long Entries, long Expected, double CpuSeconds, double? ReportedSeconds)
{
    public bool Complete => Entries == Expected;

    public double EntriesPerSecond => Entries / UntilLoaded.TotalSeconds;
}

/// <summary>The files a server kept at one moment, and how many entries it held then.</summary>
internal sealed record DiskRow(string Server, string When, DiskUse Use, long Entries)
{
    public double BytesPerEntry => (double)Use.Bytes / Entries;
}
