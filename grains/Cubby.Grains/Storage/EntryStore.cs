using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// The entries of one shard grain. Each entry is one block (<see cref="EntryHeader"/>, key, value) from the
/// <see cref="EntryBlocks"/> the stores of a silo share, found through an open-addressing table (<see cref="EntryBuckets"/>)
/// of block addresses in native memory. Entries are addressed by a dense index (0..Count-1) so a grain can sample them
/// at random for expiry and eviction; an index is valid until the next <see cref="Add"/> or <see cref="RemoveAt"/>.
/// Not thread-safe: the owning grain calls it inside its turn only.
/// </summary>
internal sealed unsafe class EntryStore(EntryBlocks blocks) : IDisposable
{
    /// <summary>
    /// Per-entry bytes beyond the block's footprint (<see cref="EntryBlocks.FootprintOf"/>): a dense slot in a table
    /// that doubles (8 bytes, up to 16 just after a doubling) and buckets kept between 3/8 and 3/4 full (8 bytes, up to 22).
    /// </summary>
    private const int IndexOverhead = 16 + 22;

    private readonly long _seed = Random.Shared.NextInt64();
    private NativeArray<nint> _entries = new(0);
    private NativeArray<ulong> _buckets = new(EntryBuckets.MinLength);
    private int _count;
    private int _expiring;

    // The entry IndexOf found last: the calls on it that follow (read its metadata, replace its value) then find its
    // block without a trip through the dense array, which a lookup through the table no longer makes.
    private int _foundIndex = -1;
    private EntryHeader* _found;
    private bool _disposed;

    /// <summary>A store of its own in native memory that recycles nothing: for tests and sizing.</summary>
    public EntryStore()
        : this(new EntryBlocks(new NativeEntryMemory(), 0, SlabPages.PageBytes))
    {
    }

    public int Count => _count;

    /// <summary>
    /// Entries with an expiry, so active expiry passes over a store without any, as Redis samples only keys with a TTL.
    /// Kept exact because whether an entry has an expiry changes only through <see cref="Add"/>, <see cref="SetMetadata"/>,
    /// <see cref="SetExpiry"/> and removal; writes through <see cref="MetadataAt"/> never add or drop one.
    /// </summary>
    public int ExpiringCount => _expiring;

    /// <summary>Bytes charged for the entries, as <see cref="SizeOf"/> counts them.</summary>
    public long UsedBytes { get; private set; }

    /// <summary>The index of <paramref name="key"/>, or -1.</summary>
    public int IndexOf(ReadOnlySpan<byte> key)
    {
        var header = EntryBuckets.Find(_buckets.AsSpan(), EntryBuckets.Hash(key, _seed), key);
        if (header is null)
        {
            return -1;
        }

        _found = header;
        return _foundIndex = header->Index;
    }

    /// <summary>
    /// Starts loading the table bucket a lookup of <paramref name="key"/> reads first; returns the key's hash. Unlike
    /// the rest of the store it may run outside the owner's turn: it reads only the table's address and length, and a
    /// prefetch of a table freed meanwhile loads nothing harmful.
    /// </summary>
    public uint PrefetchBucket(ReadOnlySpan<byte> key)
    {
        var hash = EntryBuckets.Hash(key, _seed);
        var buckets = _buckets.AsSpan();
        if (!buckets.IsEmpty)
        {
            CacheLines.Prefetch(Unsafe.AsPointer(ref buckets[(int)hash & (buckets.Length - 1)]));
        }

        return hash;
    }

    /// <summary>Starts loading the block the first bucket of <paramref name="hash"/> holds, if any: its header and key.</summary>
    public void PrefetchEntry(uint hash)
    {
        var buckets = _buckets.AsSpan();
        if (!buckets.IsEmpty && EntryBuckets.BlockAt(buckets, hash) is var block && block is not null)
        {
            CacheLines.Prefetch(block, lines: 2);
        }
    }

    public ReadOnlySpan<byte> KeyAt(int index) => EntryHeader.KeyOf(Header(Check(index)));

    public ReadOnlySpan<byte> ValueAt(int index) => EntryHeader.ValueOf(Header(Check(index)));

    /// <summary>The entry's metadata, to read, touch or slide: adding or dropping its expiry goes through <see cref="SetExpiry"/>.</summary>
    public ref EntryMetadata MetadataAt(int index) => ref Header(Check(index))->Metadata;

    /// <summary>Replaces every field of the entry's metadata.</summary>
    public void SetMetadata(int index, in EntryMetadata metadata)
    {
        ref var current = ref MetadataAt(index);
        _expiring += Expiring(metadata) - Expiring(current);
        current = metadata;
    }

    /// <summary>Gives the entry a plain absolute expiry, or none when <paramref name="expiresAt"/> is 0 (as EXPIRE and PERSIST do).</summary>
    public void SetExpiry(int index, long expiresAt)
    {
        ref var current = ref MetadataAt(index);
        _expiring += (expiresAt != 0 ? 1 : 0) - Expiring(current);
        current.SetAbsolute(expiresAt);
    }

    /// <summary>Adds an entry whose key is absent; returns its index.</summary>
    public int Add(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, in EntryMetadata metadata)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        var hash = EntryBuckets.Hash(key, _seed);
        if (EntryBuckets.Find(_buckets.AsSpan(), hash, key) is not null)
        {
            throw new InvalidOperationException("The key is already in the store.");
        }

        if (EntryBuckets.MustGrow(_count, _buckets.Length))
        {
            Rehash(_buckets.Length * 2);
        }

        if (_count == _entries.Length)
        {
            _entries.Resize(Math.Max(4, _entries.Length * 2));
        }

        var header = blocks.Rent(BlockBytes(key.Length, value.Length));
        header->Metadata = metadata;
        header->Hash = hash;
        header->KeyLength = key.Length;
        header->ValueLength = value.Length;
        key.CopyTo(new Span<byte>(header + 1, key.Length));
        value.CopyTo(EntryHeader.ValueOf(header));

        var index = _count++;
        header->Index = index;
        _expiring += Expiring(metadata);
        _entries[index] = (nint)header;
        EntryBuckets.Insert(_buckets.AsSpan(), header);
        UsedBytes += SizeOf(key.Length, value.Length);
        return index;
    }

    /// <summary>Replaces the value at <paramref name="index"/>, keeping its metadata.</summary>
    public void ReplaceValue(int index, ReadOnlySpan<byte> value)
    {
        var header = Header(Check(index));
        if (value.Length == header->ValueLength)
        {
            value.CopyTo(EntryHeader.ValueOf(header));
            return;
        }

        var oldBytes = BlockBytes(header->KeyLength, header->ValueLength);
        var newBytes = BlockBytes(header->KeyLength, value.Length);
        UsedBytes += SizeOf(header->KeyLength, value.Length) - SizeOf(header->KeyLength, header->ValueLength);

        // A value of the same size class is written in place; any other moves to a block of its class, so every block
        // is always exactly the size it is charged for.
        if (BlockSizes.RoundUp(newBytes) != BlockSizes.RoundUp(oldBytes))
        {
            header = Move(index, header, oldBytes, newBytes, sizeof(EntryHeader) + header->KeyLength);
        }

        header->ValueLength = value.Length;
        value.CopyTo(EntryHeader.ValueOf(header));
    }

    /// <summary>
    /// Moves the entry at <paramref name="index"/>, unchanged, to another block of its size class: its block is in a
    /// slab page being emptied (<see cref="SlabPages.TakeSparsestPage"/>), which rents no slot meanwhile.
    /// </summary>
    public void MoveBlock(int index)
    {
        var header = Header(Check(index));
        var bytes = BlockBytes(header->KeyLength, header->ValueLength);
        Move(index, header, bytes, bytes, bytes);
    }

    /// <summary>Removes the entry at <paramref name="index"/>; the last entry takes its index.</summary>
    public void RemoveAt(int index)
    {
        var header = Header(Check(index));
        UsedBytes -= SizeOf(header->KeyLength, header->ValueLength);
        _expiring -= Expiring(header->Metadata);
        EntryBuckets.Remove(_buckets.AsSpan(), header);
        blocks.Return(header, BlockBytes(header->KeyLength, header->ValueLength));
        _foundIndex = -1;

        var last = --_count;
        if (index != last)
        {
            var moved = Header(last);
            moved->Index = index;
            _entries[index] = (nint)moved;
        }

        _entries[last] = 0;
        if (_entries.Length > 64 && _count < _entries.Length / 4)
        {
            _entries.Resize(_entries.Length / 2);
            Rehash(EntryBuckets.LengthFor(_count));
        }
    }

    public void Clear()
    {
        for (var i = 0; i < _count; i++)
        {
            var header = Header(i);
            blocks.Return(header, BlockBytes(header->KeyLength, header->ValueLength));
        }

        _entries.Resize(0);
        _buckets.Dispose();
        _buckets = new NativeArray<ulong>(EntryBuckets.MinLength);
        _count = 0;
        _expiring = 0;
        _foundIndex = -1;
        UsedBytes = 0;
    }

    /// <summary>The bytes charged for an entry of the given sizes.</summary>
    public long SizeOf(int keyLength, int valueLength) => blocks.FootprintOf(BlockBytes(keyLength, valueLength)) + IndexOverhead;

    /// <summary>Whether the entry at <paramref name="index"/> lives in the block at <paramref name="block"/> (a slab slot being drained).</summary>
    public bool HoldsBlockAt(int index, nint block) => (nint)Header(Check(index)) == block;

    public void Dispose()
    {
        if (!_disposed)
        {
            Clear();
            _entries.Dispose();
            _buckets.Dispose();
            _disposed = true;
        }
    }

    private static long BlockBytes(int keyLength, int valueLength) => EntryHeader.BlockBytes(keyLength, valueLength);

    /// <summary>
    /// Moves the entry at <paramref name="index"/> from <paramref name="header"/>'s block of <paramref name="oldBytes"/>
    /// to a new one of <paramref name="newBytes"/>, carrying the block's first <paramref name="copiedBytes"/>; returns the new block.
    /// </summary>
    private EntryHeader* Move(int index, EntryHeader* header, long oldBytes, long newBytes, long copiedBytes)
    {
        var moved = blocks.Rent(newBytes);
        var pageId = moved->PageId;
        Buffer.MemoryCopy(header, moved, newBytes, copiedBytes);
        moved->PageId = pageId;
        EntryBuckets.Move(_buckets.AsSpan(), header, moved);
        blocks.Return(header, oldBytes);
        _entries[index] = (nint)moved;
        if (_foundIndex == index)
        {
            _found = moved;
        }

        return moved;
    }

    private static int Expiring(in EntryMetadata metadata) => metadata.HasExpiry ? 1 : 0;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int Check(int index)
    {
        if ((uint)index >= (uint)_count)
        {
            ThrowOutOfRange(index);
        }

        return index;
    }

    [DoesNotReturn]
    private static void ThrowOutOfRange(int index) => throw new ArgumentOutOfRangeException(nameof(index), index, "No entry has this index.");

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private EntryHeader* Header(int index) => index == _foundIndex ? _found : (EntryHeader*)_entries[index];

    private void Rehash(int length)
    {
        _buckets.Dispose();
        _buckets = new NativeArray<ulong>(length);
        for (var index = 0; index < _count; index++)
        {
            EntryBuckets.Insert(_buckets.AsSpan(), (EntryHeader*)_entries[index]);
        }
    }

    /// <summary>A zeroed, resizable array in native memory.</summary>
    private struct NativeArray<T>(int length) : IDisposable
        where T : unmanaged
    {
        private T* _items = length == 0 ? null : (T*)NativeMemory.AllocZeroed((nuint)length, (nuint)sizeof(T));

        public int Length { get; private set; } = length;

        public readonly Span<T> AsSpan() => new(_items, Length);

        public readonly ref T this[int index] => ref _items[index];

        public void Resize(int length)
        {
            if (length == 0)
            {
                Dispose();
                return;
            }

            _items = (T*)NativeMemory.Realloc(_items, (nuint)length * (nuint)sizeof(T));
            if (length > Length)
            {
                new Span<T>(_items + Length, length - Length).Clear();
            }

            Length = length;
        }

        public void Dispose()
        {
            NativeMemory.Free(_items);
            _items = null;
            Length = 0;
        }
    }
}
