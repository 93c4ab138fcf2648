namespace Cubby.Grains.Storage;

/// <summary>
/// An entry store on managed arrays: a dictionary from key to dense index, and the entries in one array of structs.
/// Value arrays come in <see cref="BlockSizes"/> classes from <see cref="ManagedBlocks"/>, which the stores of a silo
/// share: an overwrite of the same class reuses the value's array, and an evicted entry's array serves the next write.
/// </summary>
internal sealed class ManagedEntryStore : IEntryStore
{
    /// <summary>Approximate managed overhead per entry: two array headers, the dictionary slot and the entry struct.</summary>
    private const int EntryOverhead = 2 * 24 + 24 + 56;

    private readonly Dictionary<byte[], int> _index = new(ByteKeyComparer.Instance);
    private readonly Dictionary<byte[], int>.AlternateLookup<ReadOnlySpan<byte>> _lookup;
    private readonly ManagedBlocks _blocks;
    private Entry[] _entries = [];
    private int _count;

    public ManagedEntryStore(ManagedBlocks blocks)
    {
        _blocks = blocks;
        _lookup = _index.GetAlternateLookup<ReadOnlySpan<byte>>();
    }

    /// <summary>A store of its own that recycles nothing: for tests and sizing.</summary>
    public ManagedEntryStore()
        : this(new ManagedBlocks(0))
    {
    }

    public int Count => _count;

    public long UsedBytes { get; private set; }

    public int IndexOf(ReadOnlySpan<byte> key) => _lookup.TryGetValue(key, out var index) ? index : -1;

    public ReadOnlySpan<byte> KeyAt(int index) => EntryAt(index).Key;

    public ReadOnlySpan<byte> ValueAt(int index)
    {
        ref var entry = ref EntryAt(index);
        return entry.Value.AsSpan(0, entry.ValueLength);
    }

    public ref EntryMetadata MetadataAt(int index) => ref EntryAt(index).Metadata;

    public int Add(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, in EntryMetadata metadata)
    {
        var keyBytes = key.ToArray();
        if (!_index.TryAdd(keyBytes, _count))
        {
            throw new InvalidOperationException("The key is already in the store.");
        }

        if (_count == _entries.Length)
        {
            Array.Resize(ref _entries, Math.Max(4, _entries.Length * 2));
        }

        var valueBytes = _blocks.Rent(value.Length);
        value.CopyTo(valueBytes);
        _entries[_count] = new Entry { Key = keyBytes, Value = valueBytes, ValueLength = value.Length, Metadata = metadata };
        UsedBytes += SizeOf(key.Length, value.Length);
        return _count++;
    }

    public void ReplaceValue(int index, ReadOnlySpan<byte> value)
    {
        ref var entry = ref EntryAt(index);
        UsedBytes += SizeOf(entry.Key.Length, value.Length) - SizeOf(entry.Key.Length, entry.ValueLength);

        // A value of another size class moves to an array of its class, so every array is exactly what it is charged for.
        if (ManagedBlocks.ArrayLength(value.Length) != entry.Value.Length)
        {
            _blocks.Return(entry.Value);
            entry.Value = _blocks.Rent(value.Length);
        }

        value.CopyTo(entry.Value);
        entry.ValueLength = value.Length;
    }

    public void RemoveAt(int index)
    {
        ref var entry = ref EntryAt(index);
        _index.Remove(entry.Key);
        UsedBytes -= SizeOf(entry.Key.Length, entry.ValueLength);
        _blocks.Return(entry.Value);
        var last = --_count;
        if (index != last)
        {
            entry = _entries[last];
            _index[entry.Key] = index;
        }

        _entries[last] = default;
        ShrinkIfSparse();
    }

    public void Clear()
    {
        for (var i = 0; i < _count; i++)
        {
            _blocks.Return(_entries[i].Value);
        }

        _index.Clear();
        _entries = [];
        _count = 0;
        UsedBytes = 0;
    }

    public long SizeOf(int keyLength, int valueLength) => (long)keyLength + ManagedBlocks.ArrayLength(valueLength) + EntryOverhead;

    public void Dispose() => Clear();

    private ref Entry EntryAt(int index)
    {
        if ((uint)index >= (uint)_count)
        {
            throw new ArgumentOutOfRangeException(nameof(index));
        }

        return ref _entries[index];
    }

    private void ShrinkIfSparse()
    {
        if (_entries.Length > 64 && _count < _entries.Length / 4)
        {
            Array.Resize(ref _entries, _entries.Length / 2);
            _index.TrimExcess();
        }
    }

    private struct Entry
    {
        public byte[] Key;
        public byte[] Value;
        public int ValueLength;
        public EntryMetadata Metadata;
    }
}
