using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// An entry store on managed arrays, laid out as <see cref="NativeEntryStore"/> is: each entry is one array holding its
/// <see cref="EntryHeader"/>, key and value, found through the same open-addressing table (<see cref="EntryBuckets"/>)
/// of dense indexes. Its index costs 52 bytes an entry (the array's header, a dense reference and buckets), where a
/// dictionary beside an array of entry structs cost 160 and left as much garbage behind each time a shard's tables
/// doubled. The arrays come in <see cref="BlockSizes"/> classes from <see cref="ManagedBlocks"/>, which the stores of a
/// silo share: an overwrite of the same class writes in place, and an evicted entry's array serves the next write, so a
/// full cache's churn allocates nothing that outlives the write.
/// </summary>
internal sealed class ManagedEntryStore(ManagedBlocks blocks) : IEntryStore
{
    /// <summary>
    /// Managed bytes per entry beyond its block's size class: the array's header (24), a dense slot in a table that
    /// doubles (8 bytes, up to 16 just after a doubling) and buckets kept between 3/8 and 3/4 full (4 bytes, up to 11).
    /// </summary>
    private const int IndexOverhead = 24 + 16 + 12;

    private readonly long _seed = Random.Shared.NextInt64();
    private byte[][] _entries = [];
    private int[] _buckets = new int[EntryBuckets.MinLength];
    private int _count;

    /// <summary>A store of its own that recycles nothing: for tests and sizing.</summary>
    public ManagedEntryStore()
        : this(new ManagedBlocks(0))
    {
    }

    public int Count => _count;

    public long UsedBytes { get; private set; }

    public int IndexOf(ReadOnlySpan<byte> key) => EntryBuckets.Find(_buckets, EntryBuckets.Hash(key, _seed), key, Entries);

    public ReadOnlySpan<byte> KeyAt(int index) => KeyOf(BlockAt(index));

    public ReadOnlySpan<byte> ValueAt(int index)
    {
        var block = BlockAt(index);
        ref var header = ref HeaderOf(block);
        return block.AsSpan(Unsafe.SizeOf<EntryHeader>() + header.KeyLength, header.ValueLength);
    }

    public ref EntryMetadata MetadataAt(int index) => ref HeaderOf(BlockAt(index)).Metadata;

    public int Add(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, in EntryMetadata metadata)
    {
        var hash = EntryBuckets.Hash(key, _seed);
        if (EntryBuckets.Find(_buckets, hash, key, Entries) >= 0)
        {
            throw new InvalidOperationException("The key is already in the store.");
        }

        if (EntryBuckets.MustGrow(_count, _buckets.Length))
        {
            Rehash(_buckets.Length * 2);
        }

        if (_count == _entries.Length)
        {
            Array.Resize(ref _entries, Math.Max(4, _entries.Length * 2));
        }

        var block = blocks.Rent(checked((int)EntryHeader.BlockBytes(key.Length, value.Length)));
        ref var header = ref HeaderOf(block);
        header.Metadata = metadata;
        header.Hash = hash;
        header.KeyLength = key.Length;
        header.ValueLength = value.Length;
        key.CopyTo(block.AsSpan(Unsafe.SizeOf<EntryHeader>()));
        value.CopyTo(block.AsSpan(Unsafe.SizeOf<EntryHeader>() + key.Length));

        var index = _count++;
        _entries[index] = block;
        EntryBuckets.Insert(_buckets, header.Hash, index);
        UsedBytes += SizeOf(key.Length, value.Length);
        return index;
    }

    public void ReplaceValue(int index, ReadOnlySpan<byte> value)
    {
        var block = BlockAt(index);
        ref var header = ref HeaderOf(block);
        UsedBytes += SizeOf(header.KeyLength, value.Length) - SizeOf(header.KeyLength, header.ValueLength);

        // A value of another size class moves the entry to an array of its class, so every array is exactly what it
        // is charged for.
        var bytes = checked((int)EntryHeader.BlockBytes(header.KeyLength, value.Length));
        if (ManagedBlocks.ArrayLength(bytes) != block.Length)
        {
            var moved = blocks.Rent(bytes);
            block.AsSpan(0, Unsafe.SizeOf<EntryHeader>() + header.KeyLength).CopyTo(moved);
            blocks.Return(block);
            _entries[index] = block = moved;
            header = ref HeaderOf(block);
        }

        value.CopyTo(block.AsSpan(Unsafe.SizeOf<EntryHeader>() + header.KeyLength));
        header.ValueLength = value.Length;
    }

    public void RemoveAt(int index)
    {
        var block = BlockAt(index);
        ref var header = ref HeaderOf(block);
        UsedBytes -= SizeOf(header.KeyLength, header.ValueLength);
        EntryBuckets.Remove(_buckets, header.Hash, index, Entries);
        blocks.Return(block);

        var last = --_count;
        if (index != last)
        {
            var moved = _entries[last];
            EntryBuckets.Move(_buckets, HeaderOf(moved).Hash, last, index);
            _entries[index] = moved;
        }

        _entries[last] = null!;
        if (_entries.Length > 64 && _count < _entries.Length / 4)
        {
            Array.Resize(ref _entries, _entries.Length / 2);
            Rehash(EntryBuckets.LengthFor(_count));
        }
    }

    public void Clear()
    {
        for (var i = 0; i < _count; i++)
        {
            blocks.Return(_entries[i]);
        }

        _entries = [];
        _buckets = new int[EntryBuckets.MinLength];
        _count = 0;
        UsedBytes = 0;
    }

    public long SizeOf(int keyLength, int valueLength) => BlockSizes.RoundUp(EntryHeader.BlockBytes(keyLength, valueLength)) + IndexOverhead;

    /// <summary>Never: managed arrays are not slab slots.</summary>
    public bool HoldsBlockAt(int index, nint block) => false;

    public void Dispose() => Clear();

    private static ref EntryHeader HeaderOf(byte[] block) => ref Unsafe.As<byte, EntryHeader>(ref MemoryMarshal.GetArrayDataReference(block));

    private static ReadOnlySpan<byte> KeyOf(byte[] block) => block.AsSpan(Unsafe.SizeOf<EntryHeader>(), HeaderOf(block).KeyLength);

    private ManagedEntries Entries => new(_entries);

    private byte[] BlockAt(int index) => (uint)index < (uint)_count ? _entries[index] : throw new ArgumentOutOfRangeException(nameof(index));

    private void Rehash(int length)
    {
        _buckets = new int[length];
        EntryBuckets.Fill(_buckets, _count, Entries);
    }

    private readonly struct ManagedEntries(byte[][] entries) : IHashedEntries
    {
        public uint HashAt(int index) => HeaderOf(entries[index]).Hash;

        public bool HasKey(int index, ReadOnlySpan<byte> key) => KeyOf(entries[index]).SequenceEqual(key);
    }
}
