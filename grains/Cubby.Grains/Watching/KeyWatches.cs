using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Cubby.Grains.Storage;
using Cubby.Text;

namespace Cubby.Grains.Watching;

/// <summary>
/// The keys of one shard that connections WATCH, each with a stamp that changes whenever the key is written, deleted,
/// expired, evicted or flushed, and the number of connections watching it. Writes to keys nobody watches cost one
/// emptiness check. Not thread-safe: the shard calls it under its lock.
/// </summary>
internal sealed class KeyWatches
{
    private readonly Dictionary<byte[], (long Stamp, int Watchers)> _keys = new(ByteStringComparer.Instance);
    private long _clock;

    public bool IsEmpty => _keys.Count == 0;

    public int Count => _keys.Count;

    /// <summary>Adds a watcher of <paramref name="key"/>; returns the key's current stamp.</summary>
    public long Add(ReadOnlySpan<byte> key)
    {
        ref var watch = ref CollectionsMarshal.GetValueRefOrAddDefault(_keys.GetAlternateLookup<ReadOnlySpan<byte>>(), key, out var exists);
        if (!exists)
        {
            watch.Stamp = ++_clock;
        }

        watch.Watchers++;
        return watch.Stamp;
    }

    /// <summary>Removes a watcher of <paramref name="key"/>, and the key once nobody watches it.</summary>
    public void Remove(ReadOnlySpan<byte> key)
    {
        var lookup = _keys.GetAlternateLookup<ReadOnlySpan<byte>>();
        ref var watch = ref CollectionsMarshal.GetValueRefOrNullRef(lookup, key);
        if (!Unsafe.IsNullRef(ref watch) && --watch.Watchers <= 0)
        {
            lookup.Remove(key);
        }
    }

    /// <summary>The key's current stamp, or null when nobody watches it here (as after the shard moved).</summary>
    public long? StampOf(ReadOnlySpan<byte> key) =>
        _keys.GetAlternateLookup<ReadOnlySpan<byte>>().TryGetValue(key, out var watch) ? watch.Stamp : null;

    /// <summary>Records a change of <paramref name="key"/>, if anyone watches it.</summary>
    public void Changed(ReadOnlySpan<byte> key)
    {
        if (_keys.Count == 0)
        {
            return;
        }

        ref var watch = ref CollectionsMarshal.GetValueRefOrNullRef(_keys.GetAlternateLookup<ReadOnlySpan<byte>>(), key);
        if (!Unsafe.IsNullRef(ref watch))
        {
            watch.Stamp = ++_clock;
        }
    }

    /// <summary>Records a change of every watched key (FLUSHALL).</summary>
    public void ChangedAll()
    {
        foreach (var key in _keys.Keys)
        {
            CollectionsMarshal.GetValueRefOrNullRef(_keys, key).Stamp = ++_clock;
        }
    }
}
