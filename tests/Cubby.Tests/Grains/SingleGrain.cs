using System.Text;
using Cubby.Grains;
using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Grains;

/// <summary>
/// One shard grain on a fake clock with a budget of its own and nothing to evict (a write that does not fit gets
/// OutOfMemory), with string helpers for tests.
/// </summary>
internal sealed class SingleGrain : IDisposable
{
    public SingleGrain(long maxMemoryBytes = 1L << 24, int maxValueBytes = 1 << 20)
    {
        Budget = new MemoryBudget(maxMemoryBytes);
        Grain = new Shard(0, new EntryStore(), Budget, NothingToEvict.Instance, Time, maxValueBytes);
    }

    public FakeTimeProvider Time { get; } = new();

    public MemoryBudget Budget { get; }

    public Shard Grain { get; }

    public long Now => Time.GetUtcNow().ToUnixTimeMilliseconds();

    public static byte[] Bytes(string text) => Encoding.UTF8.GetBytes(text);

    public void Advance(long milliseconds) => Time.Advance(TimeSpan.FromMilliseconds(milliseconds));

    public SetStatus Set(string key, string value, ExpirySpec expiry = default, WriteCondition condition = WriteCondition.Always, uint flags = 0)
    {
        var none = default(NoReader);
        return Grain.Set(Bytes(key), Bytes(value), new SetRequest(condition, expiry, flags), ref none);
    }

    /// <summary>The value, or null when the entry is absent.</summary>
    public string? Get(string key, bool slide = true)
    {
        var reader = new CapturingReader();
        return Grain.Read(Bytes(key), slide, ref reader) ? reader.Text : null;
    }

    /// <summary>The entry's metadata without touching it, or null when absent.</summary>
    public EntryMetadata? Metadata(string key) =>
        Grain.TryGetMetadata(Bytes(key), out var metadata, out _) ? metadata : null;

    /// <summary>Milliseconds left to live: -1 without expiry, -2 when absent (as Redis PTTL answers).</summary>
    public long Ttl(string key) =>
        Grain.TryGetMetadata(Bytes(key), out var metadata, out var now) ? metadata.TimeToLive(now) : -2;

    public void Dispose() => Grain.Dispose();
}
