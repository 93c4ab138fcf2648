using System.Text;
using Cubby.Grains;
using Cubby.Grains.Capacity;
using Cubby.Grains.Storage;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Grains;

/// <summary>
/// One shard grain on a fake clock with a budget of its own and nothing to evict (a write that does not fit gets
/// OutOfMemory), with string helpers for tests. The thread that creates it holds the shard's turn until it is disposed
/// (<see cref="HeldTurns"/>), unless <c>heldByCreator</c> is false: then each caller takes the turn per operation.
/// </summary>
internal sealed class SingleGrain : IDisposable
{
    private readonly HeldTurns _turns = new();

    public SingleGrain(long maxMemoryBytes = 1L << 24, int maxValueBytes = 1 << 20, bool heldByCreator = true)
    {
        Budget = new MemoryBudget(maxMemoryBytes);
        Grain = new Shard(0, new EntryStore(), Budget, NothingToEvict.Instance, Time, maxValueBytes);
        if (heldByCreator)
        {
            _turns.Hold(Grain);
        }
    }

    public FakeTimeProvider Time { get; } = new();

    public MemoryBudget Budget { get; }

    public Shard Grain { get; }

    public long Now => Time.GetUtcNow().ToUnixTimeMilliseconds();

    public static byte[] Bytes(string text) => Encoding.UTF8.GetBytes(text);

    public void Advance(long milliseconds) => Time.Advance(TimeSpan.FromMilliseconds(milliseconds));

    // The helpers take the turn themselves (re-entrantly when the creator holds it), so concurrent tests can use them.
    public SetStatus Set(string key, string value, ExpirySpec expiry = default, WriteCondition condition = WriteCondition.Always, uint flags = 0)
    {
        using var turn = Grain.TakeTurn();
        var none = default(NoReader);
        return Grain.Set(Bytes(key), Bytes(value), new SetRequest(condition, expiry, flags), ref none);
    }

    /// <summary>The value, or null when the entry is absent.</summary>
    public string? Get(string key, bool slide = true)
    {
        using var turn = Grain.TakeTurn();
        var reader = new CapturingReader();
        return Grain.Read(Bytes(key), slide, ref reader) ? reader.Text : null;
    }

    /// <summary>The entry's metadata without touching it, or null when absent.</summary>
    public EntryMetadata? Metadata(string key)
    {
        using var turn = Grain.TakeTurn();
        return Grain.TryGetMetadata(Bytes(key), out var metadata, out _) ? metadata : null;
    }

    /// <summary>Milliseconds left to live: -1 without expiry, -2 when absent (as Redis PTTL answers).</summary>
    public long Ttl(string key)
    {
        using var turn = Grain.TakeTurn();
        return Grain.TryGetMetadata(Bytes(key), out var metadata, out var now) ? metadata.TimeToLive(now) : -2;
    }

    public void Dispose()
    {
        _turns.Dispose();
        Grain.Dispose();
    }
}
