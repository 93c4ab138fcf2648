using Cubby.Grains.Replication;
using Cubby.Sharding;

namespace Cubby.Grains;

/// <summary>
/// The entries of a held shard's transaction keys as they were when the hold began, each watched: a transaction that is
/// rolled back gets back, whole (value, type, flags and expiry), each key that changed while the shard was held, and
/// loses each that it created. Nothing else changes a held shard's keys meanwhile (<see cref="Shard.Hold"/>), so what
/// changed them is the transaction.
/// </summary>
internal sealed class TransactionUndo
{
    private readonly byte[][] _keys;
    private readonly ShardEntryCopy?[] _before;
    private readonly KeyWatch[] _watches;

    private TransactionUndo(byte[][] keys, ShardEntryCopy?[] before, KeyWatch[] watches)
    {
        _keys = keys;
        _before = before;
        _watches = watches;
    }

    public static TransactionUndo Capture(Shard shard, byte[][] keys)
    {
        using var turn = shard.TakeTurn();
        var before = new ShardEntryCopy?[keys.Length];
        var watches = new KeyWatch[keys.Length];
        for (var i = 0; i < keys.Length; i++)
        {
            before[i] = shard.Export(keys[i]);
            watches[i] = shard.Watch(keys[i]);
        }

        return new TransactionUndo(keys, before, watches);
    }

    /// <summary>The transaction as the shard's replicas learn it (<see cref="Shard.Describe"/>).</summary>
    public HeldTransaction Describe(Guid chain, int[] slots) => new(chain, slots, _keys, _before);

    /// <summary>Puts back every key that changed, in a settling turn (the outcome is decided: the fence does not stop it).</summary>
    public void Restore(Shard shard)
    {
        using var turn = shard.TakeSettlingTurn();
        for (var i = 0; i < _keys.Length; i++)
        {
            if (!shard.IsUnchanged(_keys[i], _watches[i]))
            {
                PutBack(shard, _keys[i], _before[i]);
            }

            shard.Unwatch(_keys[i]);
        }
    }

    /// <summary>Keeps what the transaction did: only the watches go (in a settling turn, as <see cref="Restore(Shard)"/>).</summary>
    public void Keep(Shard shard)
    {
        using var turn = shard.TakeSettlingTurn();
        foreach (var key in _keys)
        {
            shard.Unwatch(key);
        }
    }

    /// <summary>
    /// Puts back every key of <paramref name="held"/> on a shard promoted from a replica that holds the transaction's
    /// changes, which was not kept: each key is as it was before, whatever the transaction did to it.
    /// </summary>
    public static void Restore(Shard shard, HeldTransaction held)
    {
        using var turn = shard.TakeSettlingTurn();
        for (var i = 0; i < held.Keys.Length; i++)
        {
            PutBack(shard, held.Keys[i], held.Before[i]);
        }
    }

    private static void PutBack(Shard shard, byte[] key, ShardEntryCopy? entry)
    {
        if (entry is null)
        {
            shard.Remove(key);
        }
        else
        {
            shard.Import(key, entry, replace: true);
        }
    }
}
