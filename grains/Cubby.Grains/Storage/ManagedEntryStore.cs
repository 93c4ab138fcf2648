using System.Buffers.Binary;

namespace Cubby.Grains.Storage;

/// <summary>
/// An entry store on managed arrays: each entry is one array holding its key and value
/// (<see cref="EntryBlockComparer"/>), which is also its key in a dictionary from key to dense index, and the
/// entries' lengths and metadata sit in one array of structs. The arrays come in <see cref="BlockSizes"/> classes from
/// <see cref="ManagedBlocks"/>, which the stores of a silo share: an overwrite of the same class writes in place, and an
/// evicted entry's array serves the next write. So a full cache's churn, every write evicting, allocates nothing that
/// outlives the write, and leaves no garbage in the GC's oldest generation: with a key array apart from the value's,
/// each eviction left one there, and the heap held 20–30 MiB of such garbage and free space over a 64 MiB budget.
/// </summary>
internal sealed class ManagedEntryStore : IEntryStore
{
    /// <summary>
    /// Managed bytes per entry beyond its block: the array's header (24), a slot in an entry array that doubles (64
    /// bytes, up to 128 just after a doubling), and the dictionary's entry and bucket with its spare capacity.
    /// </summary>
    private const int EntryOverhead = 24 + 96 + 40;

    private readonly Dictionary<byte[], int> _index = new(EntryBlockComparer.Instance);
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

    public ReadOnlySpan<byte> KeyAt(int index)
    {
        ref var entry = ref EntryAt(index);
        return entry.Block.AsSpan(EntryBlockComparer.KeyOffset, entry.KeyLength);
    }

    public ReadOnlySpan<byte> ValueAt(int index)
    {
        ref var entry = ref EntryAt(index);
        return entry.Block.AsSpan(EntryBlockComparer.KeyOffset + entry.KeyLength, entry.ValueLength);
    }

    public ref EntryMetadata MetadataAt(int index) => ref EntryAt(index).Metadata;

    public int Add(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, in EntryMetadata metadata)
    {
        var block = _blocks.Rent(checked((int)BlockBytes(key.Length, value.Length)));
        BinaryPrimitives.WriteInt32LittleEndian(block, key.Length);
        key.CopyTo(block.AsSpan(EntryBlockComparer.KeyOffset));
        value.CopyTo(block.AsSpan(EntryBlockComparer.KeyOffset + key.Length));
        if (!_index.TryAdd(block, _count))
        {
            _blocks.Return(block);
            throw new InvalidOperationException("The key is already in the store.");
        }

        if (_count == _entries.Length)
        {
            Array.Resize(ref _entries, Math.Max(4, _entries.Length * 2));
        }

        _entries[_count] = new Entry { Block = block, KeyLength = key.Length, ValueLength = value.Length, Metadata = metadata };
        UsedBytes += SizeOf(key.Length, value.Length);
        return _count++;
    }

    public void ReplaceValue(int index, ReadOnlySpan<byte> value)
    {
        ref var entry = ref EntryAt(index);
        UsedBytes += SizeOf(entry.KeyLength, value.Length) - SizeOf(entry.KeyLength, entry.ValueLength);

        // A value of another size class moves the entry to a block of its class, so every block is exactly what it is
        // charged for; the dictionary is keyed by the block, so it follows.
        var bytes = checked((int)BlockBytes(entry.KeyLength, value.Length));
        if (ManagedBlocks.ArrayLength(bytes) != entry.Block.Length)
        {
            var moved = _blocks.Rent(bytes);
            entry.Block.AsSpan(0, EntryBlockComparer.KeyOffset + entry.KeyLength).CopyTo(moved);
            _index.Remove(entry.Block);
            _index.Add(moved, index);
            _blocks.Return(entry.Block);
            entry.Block = moved;
        }

        value.CopyTo(entry.Block.AsSpan(EntryBlockComparer.KeyOffset + entry.KeyLength));
        entry.ValueLength = value.Length;
    }

    public void RemoveAt(int index)
    {
        ref var entry = ref EntryAt(index);
        _index.Remove(entry.Block);
        UsedBytes -= SizeOf(entry.KeyLength, entry.ValueLength);
        _blocks.Return(entry.Block);
        var last = --_count;
        if (index != last)
        {
            entry = _entries[last];
            _index[entry.Block] = index;
        }

        _entries[last] = default;
        ShrinkIfSparse();
    }

    public void Clear()
    {
        for (var i = 0; i < _count; i++)
        {
            _blocks.Return(_entries[i].Block);
        }

        _index.Clear();
        _entries = [];
        _count = 0;
        UsedBytes = 0;
    }

    public long SizeOf(int keyLength, int valueLength) => BlockSizes.RoundUp(BlockBytes(keyLength, valueLength)) + EntryOverhead;

    public void Dispose() => Clear();

    private static long BlockBytes(int keyLength, int valueLength) => EntryBlockComparer.KeyOffset + (long)keyLength + valueLength;

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
        public byte[] Block;
        public int KeyLength;
        public int ValueLength;
        public EntryMetadata Metadata;
    }
}
