using System.Runtime.InteropServices;
using Cubby.Text;

namespace Cubby.Grains.Tracking;

/// <summary>
/// The keys of one shard that tracking readers (see <see cref="ReadTracking"/>) have read, each with the readers to tell
/// when it next changes, by <see cref="ReadTracking"/>'s reader numbers. One-shot, as Redis's default tracking
/// mode: a change tells each reader once and forgets the key until it is read again, except for the near caches a
/// change sent the key's new value to, which hold it still. Writes to keys nobody tracks cost
/// one emptiness check. Not thread-safe: the shard calls it in its turn.
/// </summary>
internal sealed class KeyReaders
{
    private readonly Dictionary<byte[], ReaderSet> _keys = new(ByteStringComparer.Instance);

    public bool IsEmpty => _keys.Count == 0;

    public int Count => _keys.Count;

    /// <summary>Remembers that <paramref name="reader"/> read <paramref name="key"/>; returns whether the key is new here.</summary>
    public bool Add(ReadOnlySpan<byte> key, int reader)
    {
        ref var readers = ref CollectionsMarshal.GetValueRefOrAddDefault(_keys.GetAlternateLookup<ReadOnlySpan<byte>>(), key, out var existed);
        readers = readers.With(reader);
        return !existed;
    }

    /// <summary>Remembers that <paramref name="readers"/>, and only they, read <paramref name="key"/>, which nobody tracked.</summary>
    public void Set(ReadOnlySpan<byte> key, ReaderSet readers) => _keys[key.ToArray()] = readers;

    /// <summary>Forgets <paramref name="key"/>; returns the readers to tell, none when nobody read it.</summary>
    public ReaderSet Remove(ReadOnlySpan<byte> key) =>
        _keys.Count > 0 && _keys.GetAlternateLookup<ReadOnlySpan<byte>>().Remove(key, out _, out var readers) ? readers : default;

    /// <summary>Forgets every key; returns every reader of any of them and how many keys there were.</summary>
    public (ReaderSet Readers, int Keys) RemoveAll()
    {
        var readers = default(ReaderSet);
        foreach (var set in _keys.Values)
        {
            readers = readers.Union(set);
        }

        var count = _keys.Count;
        _keys.Clear();
        return (readers, count);
    }

    /// <summary>Some key, to forget when the silo tracks too many; null when none.</summary>
    public byte[]? AnyKey()
    {
        foreach (var key in _keys.Keys)
        {
            return key;
        }

        return null;
    }
}
