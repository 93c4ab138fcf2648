using System.IO.Hashing;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// An entry store that lives entirely outside the GC heap: each entry is one native block (metadata, key, value), found
/// through an open-addressing table of dense indexes that is native memory too. Millions of entries are nothing for
/// the GC to mark or compact, so collections stay short however much is cached. Blocks come in
/// <see cref="BlockSizes"/> classes from <see cref="NativeBlocks"/>, which the stores of a silo share.
/// </summary>
internal sealed unsafe class NativeEntryStore(NativeBlocks blocks) : IEntryStore
{
    /// <summary>
    /// Per-entry bytes beyond the block's size class: glibc's chunk header and alignment (16), a dense slot in a table
    /// that doubles (8 bytes, up to 16 just after a doubling) and buckets kept between 3/8 and 3/4 full (4 bytes, up to
    /// 11). Measured: 1,149 bytes of malloc per entry for a 16-byte key and a 1 KiB value, whose block class is 1,104.
    /// </summary>
    private const int IndexOverhead = 16 + 16 + 12;
    private const int MinBuckets = 16;

    private readonly long _seed = Random.Shared.NextInt64();
    private NativeArray<nint> _entries = new(0);
    private NativeArray<int> _buckets = new(MinBuckets);
    private int _count;
    private bool _disposed;

    /// <summary>A store of its own that recycles nothing: for tests and sizing.</summary>
    public NativeEntryStore()
        : this(new NativeBlocks(0))
    {
    }

    public int Count => _count;

    public long UsedBytes { get; private set; }

    public int IndexOf(ReadOnlySpan<byte> key)
    {
        var hash = Hash(key);
        var mask = _buckets.Length - 1;
        for (var bucket = (int)hash & mask; ; bucket = (bucket + 1) & mask)
        {
            var slot = _buckets[bucket];
            if (slot == 0)
            {
                return -1;
            }

            var header = Header(slot - 1);
            if (header->Hash == hash && KeyOf(header).SequenceEqual(key))
            {
                return slot - 1;
            }
        }
    }

    public ReadOnlySpan<byte> KeyAt(int index) => KeyOf(Header(Check(index)));

    public ReadOnlySpan<byte> ValueAt(int index)
    {
        var header = Header(Check(index));
        return new ReadOnlySpan<byte>((byte*)(header + 1) + header->KeyLength, header->ValueLength);
    }

    public ref EntryMetadata MetadataAt(int index) => ref Header(Check(index))->Metadata;

    public int Add(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, in EntryMetadata metadata)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (IndexOf(key) >= 0)
        {
            throw new InvalidOperationException("The key is already in the store.");
        }

        if ((_count + 1) * 4 > _buckets.Length * 3)
        {
            Rehash(_buckets.Length * 2);
        }

        if (_count == _entries.Length)
        {
            _entries.Resize(Math.Max(4, _entries.Length * 2));
        }

        var header = (EntryHeader*)blocks.Rent(BlockBytes(key.Length, value.Length));
        header->Metadata = metadata;
        header->Hash = Hash(key);
        header->KeyLength = key.Length;
        header->ValueLength = value.Length;
        key.CopyTo(new Span<byte>(header + 1, key.Length));
        value.CopyTo(new Span<byte>((byte*)(header + 1) + key.Length, value.Length));

        var index = _count++;
        _entries[index] = (nint)header;
        _buckets[FreeBucket(header->Hash)] = index + 1;
        UsedBytes += SizeOf(key.Length, value.Length);
        return index;
    }

    public void ReplaceValue(int index, ReadOnlySpan<byte> value)
    {
        var header = Header(Check(index));
        var oldBytes = BlockBytes(header->KeyLength, header->ValueLength);
        var newBytes = BlockBytes(header->KeyLength, value.Length);
        UsedBytes += SizeOf(header->KeyLength, value.Length) - SizeOf(header->KeyLength, header->ValueLength);

        // A value of the same size class is written in place; any other moves to a block of its class, so every block
        // is always exactly the size it is charged for.
        if (BlockSizes.RoundUp(newBytes) != BlockSizes.RoundUp(oldBytes))
        {
            var moved = (EntryHeader*)blocks.Rent(newBytes);
            new ReadOnlySpan<byte>(header, sizeof(EntryHeader) + header->KeyLength).CopyTo(new Span<byte>(moved, sizeof(EntryHeader) + header->KeyLength));
            blocks.Return(header, oldBytes);
            header = moved;
            _entries[index] = (nint)header;
        }

        header->ValueLength = value.Length;
        value.CopyTo(new Span<byte>((byte*)(header + 1) + header->KeyLength, value.Length));
    }

    public void RemoveAt(int index)
    {
        var header = Header(Check(index));
        UsedBytes -= SizeOf(header->KeyLength, header->ValueLength);
        DeleteBucket(BucketOf(index, header->Hash));
        blocks.Return(header, BlockBytes(header->KeyLength, header->ValueLength));

        var last = --_count;
        if (index != last)
        {
            var moved = Header(last);
            _buckets[BucketOf(last, moved->Hash)] = index + 1;
            _entries[index] = (nint)moved;
        }

        _entries[last] = 0;
        if (_entries.Length > 64 && _count < _entries.Length / 4)
        {
            _entries.Resize(_entries.Length / 2);
            Rehash(Math.Max(MinBuckets, (int)BitOperations.RoundUpToPowerOf2((uint)(_count * 2 + 1))));
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
        _buckets = new NativeArray<int>(MinBuckets);
        _count = 0;
        UsedBytes = 0;
    }

    public long SizeOf(int keyLength, int valueLength) => BlockSizes.RoundUp(BlockBytes(keyLength, valueLength)) + IndexOverhead;

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

    private static long BlockBytes(int keyLength, int valueLength) => sizeof(EntryHeader) + (long)keyLength + valueLength;

    private static ReadOnlySpan<byte> KeyOf(EntryHeader* header) => new(header + 1, header->KeyLength);

    private uint Hash(ReadOnlySpan<byte> key) => (uint)XxHash64.HashToUInt64(key, _seed);

    private int Check(int index) => (uint)index < (uint)_count ? index : throw new ArgumentOutOfRangeException(nameof(index));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private EntryHeader* Header(int index) => (EntryHeader*)_entries[index];

    private int FreeBucket(uint hash)
    {
        var mask = _buckets.Length - 1;
        var bucket = (int)hash & mask;
        while (_buckets[bucket] != 0)
        {
            bucket = (bucket + 1) & mask;
        }

        return bucket;
    }

    private int BucketOf(int index, uint hash)
    {
        var mask = _buckets.Length - 1;
        var bucket = (int)hash & mask;
        while (_buckets[bucket] != index + 1)
        {
            bucket = (bucket + 1) & mask;
        }

        return bucket;
    }

    /// <summary>Empties a bucket and shifts later members of its probe run back, so lookups need no tombstones.</summary>
    private void DeleteBucket(int hole)
    {
        var mask = _buckets.Length - 1;
        var next = hole;
        while (true)
        {
            next = (next + 1) & mask;
            var slot = _buckets[next];
            if (slot == 0)
            {
                break;
            }

            var home = (int)Header(slot - 1)->Hash & mask;

            // The entry at 'next' may fill the hole only if its home bucket does not lie cyclically in (hole, next].
            var homeInRange = hole <= next ? home > hole && home <= next : home > hole || home <= next;
            if (!homeInRange)
            {
                _buckets[hole] = slot;
                hole = next;
            }
        }

        _buckets[hole] = 0;
    }

    private void Rehash(int bucketCount)
    {
        _buckets.Dispose();
        _buckets = new NativeArray<int>(bucketCount);
        for (var index = 0; index < _count; index++)
        {
            _buckets[FreeBucket(Header(index)->Hash)] = index + 1;
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct EntryHeader
    {
        public EntryMetadata Metadata;
        public uint Hash;
        public int KeyLength;
        public int ValueLength;
    }

    /// <summary>A zeroed, resizable array in native memory.</summary>
    private struct NativeArray<T>(int length) : IDisposable
        where T : unmanaged
    {
        private T* _items = length == 0 ? null : (T*)NativeMemory.AllocZeroed((nuint)length, (nuint)sizeof(T));

        public int Length { get; private set; } = length;

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
