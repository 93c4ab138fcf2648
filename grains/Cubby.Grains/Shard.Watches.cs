using Cubby.Grains.Watching;
using Cubby.Sharding;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    // Made by the first WATCH: a write to a shard nobody watches costs a null check, not visits to two more objects.
    private KeyWatches? _watches;

    /// <summary>Starts watching <paramref name="key"/> for one connection (WATCH).</summary>
    public KeyWatch Watch(ReadOnlySpan<byte> key)
    {
        RequireTurn();
        // Looked up first: a lazily expired entry is removed here, which is a change before the watch, not after.
        var existed = FindLive(key, Now()) >= 0;
        return new KeyWatch((_watches ??= new()).Add(key), existed);
    }

    /// <summary>Stops watching <paramref name="key"/> for one connection (UNWATCH, EXEC, DISCARD, or it closed).</summary>
    public void Unwatch(ReadOnlySpan<byte> key)
    {
        RequireTurn();
        _watches?.Remove(key);
    }

    /// <summary>Whether <paramref name="key"/> is as it was when <paramref name="watch"/> began: not written, deleted, expired or evicted since.</summary>
    public bool IsUnchanged(ReadOnlySpan<byte> key, KeyWatch watch)
    {
        RequireTurn();
        return _watches?.StampOf(key) == watch.Stamp && FindLive(key, Now()) >= 0 == watch.Existed;
    }

    /// <summary>How many keys connections watch here.</summary>
    public int WatchedKeys
    {
        get
        {
            lock (_turn)
            {
                return _watches?.Count ?? 0;
            }
        }
    }
}
