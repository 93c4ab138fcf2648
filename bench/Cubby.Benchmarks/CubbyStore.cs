using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Grains.Storage;

namespace Cubby.Benchmarks;

/// <summary>
/// Cubby's store as the silo drives it: the key's slot (<c>ShardMap.SlotOf</c>), that slot's <see cref="Shard"/>,
/// and one turn of it around each operation, for one store kind.
/// </summary>
internal sealed class CubbyStore(EntryStores stores) : IDisposable
{
    private static readonly SetRequest Always = new(WriteCondition.Always, ExpirySpec.Never);

    private readonly ShardCatalog _catalog = new(new ShardOptions { KeptForReuseBytes = 0, MaxMemoryBytes = 4L << 30 }, TimeProvider.System, stores);

    public int Get(byte[] key)
    {
        var shard = _catalog.GetOrCreate(key);
        using var turn = shard.TakeTurn();
        var reader = default(LengthReader);
        return shard.Read(key, slide: false, ref reader) ? reader.Length : -1;
    }

    public SetStatus Set(byte[] key, byte[] value)
    {
        var shard = _catalog.GetOrCreate(key);
        using var turn = shard.TakeTurn();
        var none = default(NoReader);
        return shard.Set(key, value, Always, ref none);
    }

    public bool Remove(byte[] key)
    {
        var shard = _catalog.GetOrCreate(key);
        using var turn = shard.TakeTurn();
        return shard.Remove(key);
    }

    public void Dispose() => _catalog.Dispose();
}
