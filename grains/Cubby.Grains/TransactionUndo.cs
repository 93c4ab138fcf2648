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
    private readonly (byte[] Key, ShardEntryCopy? Entry, KeyWatch Watch)[] _before;

    private TransactionUndo((byte[], ShardEntryCopy?, KeyWatch)[] before) => _before = before;

    public static TransactionUndo Capture(Shard shard, byte[][] keys)
    {
        using var turn = shard.TakeTurn();
        var before = new (byte[], ShardEntryCopy?, KeyWatch)[keys.Length];
        for (var i = 0; i < keys.Length; i++)
        {
            before[i] = (keys[i], shard.Export(keys[i]), shard.Watch(keys[i]));
        }

        return new TransactionUndo(before);
    }

    /// <summary>Puts back every key that changed.</summary>
    public void Restore(Shard shard)
    {
        using var turn = shard.TakeTurn();
        foreach (var (key, entry, watch) in _before)
        {
            if (!shard.IsUnchanged(key, watch))
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

            shard.Unwatch(key);
        }
    }

    /// <summary>Keeps what the transaction did: only the watches go.</summary>
    public void Keep(Shard shard)
    {
        using var turn = shard.TakeTurn();
        foreach (var (key, _, _) in _before)
        {
            shard.Unwatch(key);
        }
    }
}
