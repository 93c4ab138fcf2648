using System.Buffers;
using System.Text;
using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Grains.Migration;
using Cubby.Grains.Storage;
using Cubby.Sharding;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Grains;

/// <summary>Two silos' grain catalogs on one fake clock, and the steps of handing a slot from the first to the second.</summary>
internal sealed class MigrationPair : IDisposable
{
    public MigrationPair(StoreKind sourceStore, StoreKind targetStore, long targetBudget = 1L << 30, int slotCount = 64)
    {
        Source = new ShardCatalog(new ShardOptions { KeptForReuseBytes = 0, SlotCount = slotCount }, Time, StoreKinds.Factory(sourceStore));
        Target = new ShardCatalog(new ShardOptions { KeptForReuseBytes = 0, SlotCount = slotCount, MaxMemoryBytes = targetBudget }, Time, StoreKinds.Factory(targetStore));
    }

    public FakeTimeProvider Time { get; } = new();

    /// <summary>The turns of shards the test drives directly (see <see cref="HeldTurns"/>); the static helpers take their own.</summary>
    public HeldTurns Turns { get; } = new();

    public ShardCatalog Source { get; }

    public ShardCatalog Target { get; }

    public long Now => Time.GetUtcNow().ToUnixTimeMilliseconds();

    public static byte[] Bytes(string text) => Encoding.UTF8.GetBytes(text);

    /// <summary>Keys that all hash to one slot, through a shared hash tag.</summary>
    public static string KeyOf(int i) => $"{{moving}}:{i}";

    public int MovingSlot => Source.ShardMap.SlotOf(KeyOf(0));

    public void Advance(long milliseconds) => Time.Advance(TimeSpan.FromMilliseconds(milliseconds));

    public static SetStatus Set(ShardCatalog catalog, string key, byte[] value, ExpirySpec expiry = default, uint flags = 0)
    {
        var shard = catalog.GetOrCreate(Bytes(key));
        using var turn = shard.TakeTurn();
        var none = default(NoReader);
        return shard.Set(Bytes(key), value, new SetRequest(WriteCondition.Always, expiry, flags), ref none);
    }

    /// <summary>Every chunk of <paramref name="grain"/>, as <see cref="Shard.WriteChunk"/> cuts them.</summary>
    public static List<byte[]> WriteAllChunks(Shard grain, int maxBytes)
    {
        var chunks = new List<byte[]>();
        var buffer = new ArrayBufferWriter<byte>();
        var cursor = 0;
        while (grain.WriteChunk(ref cursor, maxBytes, buffer))
        {
            chunks.Add(buffer.WrittenSpan.ToArray());
            buffer.ResetWrittenCount();
        }

        Assert.Equal(0, buffer.WrittenCount);
        return chunks;
    }

    /// <summary>The keys a chunk holds, in order.</summary>
    public static List<string> KeysIn(byte[] chunk)
    {
        var keys = new List<string>();
        var reader = new MigrationChunkReader(chunk);
        while (reader.TryRead(out var entry))
        {
            keys.Add(Encoding.UTF8.GetString(entry.Key));
        }

        return keys;
    }

    /// <summary>The whole handoff of <paramref name="slot"/>: detach, stream, install into a detached grain, attach, dispose.</summary>
    public (List<byte[]> Chunks, int Installed) Move(int slot, int maxBytes)
    {
        var leaving = Source.Detach(slot) ?? throw new InvalidOperationException("The slot has no grain.");
        var chunks = WriteAllChunks(leaving, maxBytes);
        var arriving = Target.CreateDetached(slot);
        var installed = chunks.Sum(chunk => arriving.Install(chunk));
        Target.Attach(slot, arriving);
        leaving.Dispose();
        return (chunks, installed);
    }

    /// <summary>The value and metadata of a live entry without touching it, or null when absent.</summary>
    public static (byte[] Value, EntryMetadata Metadata)? Peek(ShardCatalog catalog, string key)
    {
        var reader = new CapturingReader();
        var grain = catalog.GetOrCreate(Bytes(key));
        using var turn = grain.TakeTurn();
        if (!grain.TryGetMetadata(Bytes(key), out var metadata, out _)
            || !(metadata.Kind == EntryKind.Hash ? grain.ReadHash(Bytes(key), ref reader) : grain.Read(Bytes(key), slide: false, ref reader)))
        {
            return null;
        }

        return (reader.Value!, metadata);
    }

    public void Dispose()
    {
        Turns.Dispose();
        Source.Dispose();
        Target.Dispose();
    }
}
