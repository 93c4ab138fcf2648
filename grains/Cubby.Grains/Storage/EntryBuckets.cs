using System.IO.Hashing;
using System.Numerics;

namespace Cubby.Grains.Storage;

/// <summary>What <see cref="EntryBuckets"/> asks of a store's dense entries.</summary>
internal interface IHashedEntries
{
    /// <summary>The key hash of the entry at <paramref name="index"/>.</summary>
    uint HashAt(int index);

    /// <summary>Whether the entry at <paramref name="index"/> has <paramref name="key"/>.</summary>
    bool HasKey(int index, ReadOnlySpan<byte> key);
}

/// <summary>
/// The open-addressing table both stores find their dense entries by. A bucket holds an entry's key hash in its high
/// 32 bits and its index + 1 in its low 32 (0 is empty), so a probe past another key's bucket reads no entry: only a
/// bucket whose hash matches costs a visit to the entry's block, which a lookup reads anyway. Probing is linear, and
/// a removal shifts later members of its run back, so there are no tombstones. The table stays between 3/8 and 3/4
/// full, a power of two long; the memory is the store's own, given as a span.
/// </summary>
internal static class EntryBuckets
{
    public const int MinLength = 16;

    /// <summary>Whether a table of <paramref name="length"/> buckets must double before it takes entry number <paramref name="count"/> + 1.</summary>
    public static bool MustGrow(int count, int length) => (count + 1) * 4 > length * 3;

    /// <summary>The table length for <paramref name="count"/> entries after the store shrinks.</summary>
    public static int LengthFor(int count) => Math.Max(MinLength, (int)BitOperations.RoundUpToPowerOf2((uint)(count * 2 + 1)));

    /// <summary>The key hash both stores use; <paramref name="seed"/> is per store, so clients cannot pick colliding keys.</summary>
    public static uint Hash(ReadOnlySpan<byte> key, long seed) => (uint)XxHash64.HashToUInt64(key, seed);

    /// <summary>The index of the entry with <paramref name="key"/>, or -1.</summary>
    public static int Find<TEntries>(ReadOnlySpan<ulong> buckets, uint hash, ReadOnlySpan<byte> key, in TEntries entries)
        where TEntries : struct, IHashedEntries
    {
        var mask = buckets.Length - 1;
        for (var bucket = (int)hash & mask; ; bucket = (bucket + 1) & mask)
        {
            var slot = buckets[bucket];
            if (slot == 0)
            {
                return -1;
            }

            if (HashOf(slot) == hash && entries.HasKey(IndexOf(slot), key))
            {
                return IndexOf(slot);
            }
        }
    }

    /// <summary>Files the entry at <paramref name="index"/> under <paramref name="hash"/>.</summary>
    public static void Insert(Span<ulong> buckets, uint hash, int index) => buckets[FreeBucket(buckets, hash)] = Slot(hash, index);

    /// <summary>Re-files the entry with <paramref name="hash"/> that moved from index <paramref name="from"/> to <paramref name="to"/>.</summary>
    public static void Move(Span<ulong> buckets, uint hash, int from, int to) => buckets[BucketOf(buckets, hash, from)] = Slot(hash, to);

    /// <summary>Takes the entry at <paramref name="index"/> out of the table.</summary>
    public static void Remove(Span<ulong> buckets, uint hash, int index)
    {
        var mask = buckets.Length - 1;
        var hole = BucketOf(buckets, hash, index);
        var next = hole;
        while (true)
        {
            next = (next + 1) & mask;
            var slot = buckets[next];
            if (slot == 0)
            {
                break;
            }

            var home = (int)HashOf(slot) & mask;

            // The entry at 'next' may fill the hole only if its home bucket does not lie cyclically in (hole, next].
            var homeInRange = hole <= next ? home > hole && home <= next : home > hole || home <= next;
            if (!homeInRange)
            {
                buckets[hole] = slot;
                hole = next;
            }
        }

        buckets[hole] = 0;
    }

    /// <summary>Files entries 0..<paramref name="count"/>-1 into an empty table.</summary>
    public static void Fill<TEntries>(Span<ulong> buckets, int count, in TEntries entries)
        where TEntries : struct, IHashedEntries
    {
        for (var index = 0; index < count; index++)
        {
            Insert(buckets, entries.HashAt(index), index);
        }
    }

    private static ulong Slot(uint hash, int index) => ((ulong)hash << 32) | (uint)(index + 1);

    private static uint HashOf(ulong slot) => (uint)(slot >> 32);

    private static int IndexOf(ulong slot) => (int)(uint)slot - 1;

    private static int FreeBucket(ReadOnlySpan<ulong> buckets, uint hash)
    {
        var mask = buckets.Length - 1;
        var bucket = (int)hash & mask;
        while (buckets[bucket] != 0)
        {
            bucket = (bucket + 1) & mask;
        }

        return bucket;
    }

    private static int BucketOf(ReadOnlySpan<ulong> buckets, uint hash, int index)
    {
        var mask = buckets.Length - 1;
        var bucket = (int)hash & mask;
        var slot = Slot(hash, index);
        while (buckets[bucket] != slot)
        {
            bucket = (bucket + 1) & mask;
        }

        return bucket;
    }
}
