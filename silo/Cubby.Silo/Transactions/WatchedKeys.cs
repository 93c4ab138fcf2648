using Cubby.Sharding;

namespace Cubby.Silo.Transactions;

/// <summary>A key a connection WATCHes: its shard, its bytes, and what the shard said when the watch began.</summary>
internal readonly record struct WatchedKey(int Slot, byte[] Key, KeyWatch Watch);

/// <summary>The keys a connection WATCHes, until EXEC, DISCARD or UNWATCH, or until it closes.</summary>
internal sealed class WatchedKeys
{
    private readonly List<WatchedKey> _keys = [];

    public IReadOnlyList<WatchedKey> Keys => _keys;

    public bool Contains(ReadOnlySpan<byte> key)
    {
        foreach (var watched in _keys)
        {
            if (key.SequenceEqual(watched.Key))
            {
                return true;
            }
        }

        return false;
    }

    public void Add(int slot, byte[] key, KeyWatch watch) => _keys.Add(new WatchedKey(slot, key, watch));

    /// <summary>The watched keys grouped by shard, ascending.</summary>
    public IEnumerable<IGrouping<int, WatchedKey>> ByShard() => _keys.GroupBy(static watched => watched.Slot).OrderBy(static group => group.Key);
}
