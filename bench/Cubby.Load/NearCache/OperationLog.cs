namespace Cubby.Load.NearCache;

/// <summary>
/// What one worker process did, for the parent to check across processes: every acknowledged write (key, version,
/// when sent, when acknowledged) and every read (key, version returned, when begun). Times are <see cref="System.Diagnostics.Stopwatch"/>
/// timestamps, one monotonic clock for every process on the machine. Writes go back to the warm-up, as the versions
/// after them build on them; reads, misses and <see cref="Seconds"/> are of the timed run, from <see cref="TimedFrom"/>.
/// </summary>
internal sealed class OperationLog(int expectedReads = 0)
{
    public List<(int Key, long Version, long SentAt, long AckedAt)> Writes { get; } = new(expectedReads / 10);

    /// <summary>Sized up front by the worker, so that growing it while timed neither copies nor makes garbage for the collector.</summary>
    public List<(int Key, long Version, long BeganAt)> Reads { get; } = new(expectedReads);

    public long Misses { get; set; }

    public double Seconds { get; set; }

    /// <summary>When the timed run began, after the warm-up.</summary>
    public long TimedFrom { get; set; }

    /// <summary>The writes sent in the timed run.</summary>
    public IEnumerable<(int Key, long Version, long SentAt, long AckedAt)> TimedWrites => Writes.Where(write => write.SentAt >= TimedFrom);

    public async Task SaveAsync(string path)
    {
        await using var stream = File.Create(path);
        await using var writer = new BinaryWriter(stream);
        writer.Write(Seconds);
        writer.Write(TimedFrom);
        writer.Write(Misses);
        writer.Write(Writes.Count);
        foreach (var (key, version, sent, acked) in Writes)
        {
            writer.Write(key);
            writer.Write(version);
            writer.Write(sent);
            writer.Write(acked);
        }

        writer.Write(Reads.Count);
        foreach (var (key, version, at) in Reads)
        {
            writer.Write(key);
            writer.Write(version);
            writer.Write(at);
        }
    }

    public static OperationLog Load(string path)
    {
        using var reader = new BinaryReader(File.OpenRead(path));
        var log = new OperationLog { Seconds = reader.ReadDouble(), TimedFrom = reader.ReadInt64(), Misses = reader.ReadInt64() };
        for (var i = reader.ReadInt32(); i > 0; i--)
        {
            log.Writes.Add((reader.ReadInt32(), reader.ReadInt64(), reader.ReadInt64(), reader.ReadInt64()));
        }

        for (var i = reader.ReadInt32(); i > 0; i--)
        {
            log.Reads.Add((reader.ReadInt32(), reader.ReadInt64(), reader.ReadInt64()));
        }

        return log;
    }
}
