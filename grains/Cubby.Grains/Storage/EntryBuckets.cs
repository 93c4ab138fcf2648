using System.Diagnostics.CodeAnalysis;
using System.IO.Hashing;
using System.Numerics;

namespace Cubby.Grains.Storage;

/// <summary>
/// The open-addressing table a store finds its entry blocks by. A bucket holds the block's address in its low 48 bits
/// and a 16-bit tag of the key's hash in its high 16 (0 is empty), so a lookup goes from the bucket straight to the
/// block, and a probe past another key's bucket reads no block unless the tags match. Probing is linear, and a removal
/// shifts later members of its run back, so there are no tombstones; that reads each later member's hash from its block.
/// The table stays between 3/8 and 3/4 full, a power of two long; the memory is the store's own, given as a span.
/// </summary>
internal static unsafe class EntryBuckets
{
    public const int MinLength = 16;

    private const int AddressBits = 48;
    private const ulong AddressMask = (1UL << AddressBits) - 1;

    /// <summary>Whether a table of <paramref name="length"/> buckets must double before it takes entry number <paramref name="count"/> + 1.</summary>
    public static bool MustGrow(int count, int length) => (count + 1) * 4 > length * 3;

    /// <summary>The table length for <paramref name="count"/> entries after the store shrinks.</summary>
    public static int LengthFor(int count) => Math.Max(MinLength, (int)BitOperations.RoundUpToPowerOf2((uint)(count * 2 + 1)));

    /// <summary>The key hash a store files its entries by; <paramref name="seed"/> is per store, so clients cannot pick colliding keys.</summary>
    public static uint Hash(ReadOnlySpan<byte> key, long seed) => (uint)XxHash64.HashToUInt64(key, seed);

    /// <summary>The block of the entry with <paramref name="key"/>, or null.</summary>
    public static EntryHeader* Find(ReadOnlySpan<ulong> buckets, uint hash, ReadOnlySpan<byte> key)
    {
        var mask = buckets.Length - 1;
        var tag = TagOf(hash);
        for (var bucket = (int)hash & mask; ; bucket = (bucket + 1) & mask)
        {
            var slot = buckets[bucket];
            if (slot == 0)
            {
                return null;
            }

            if ((slot >> AddressBits) == tag && EntryHeader.KeyOf(BlockOf(slot)).SequenceEqual(key))
            {
                return BlockOf(slot);
            }
        }
    }

    /// <summary>The block the home bucket of <paramref name="hash"/> holds, whatever its key, or null when that bucket is empty.</summary>
    public static EntryHeader* BlockAt(ReadOnlySpan<ulong> buckets, uint hash)
    {
        var slot = buckets[(int)hash & (buckets.Length - 1)];
        return slot == 0 ? null : BlockOf(slot);
    }

    /// <summary>Files the entry whose block is <paramref name="header"/>.</summary>
    public static void Insert(Span<ulong> buckets, EntryHeader* header)
    {
        var mask = buckets.Length - 1;
        var bucket = (int)header->Hash & mask;
        while (buckets[bucket] != 0)
        {
            bucket = (bucket + 1) & mask;
        }

        buckets[bucket] = Slot(header);
    }

    /// <summary>Re-files an entry whose block moved from <paramref name="from"/> to <paramref name="to"/>.</summary>
    public static void Move(Span<ulong> buckets, EntryHeader* from, EntryHeader* to) => buckets[BucketOf(buckets, from)] = Slot(to);

    /// <summary>Takes the entry whose block is <paramref name="header"/> out of the table.</summary>
    public static void Remove(Span<ulong> buckets, EntryHeader* header)
    {
        var mask = buckets.Length - 1;
        var hole = BucketOf(buckets, header);
        var next = hole;
        while (true)
        {
            next = (next + 1) & mask;
            var slot = buckets[next];
            if (slot == 0)
            {
                break;
            }

            var home = (int)BlockOf(slot)->Hash & mask;

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

    private static ulong TagOf(uint hash) => (hash * 0x9E3779B1u) >> 16;

    private static EntryHeader* BlockOf(ulong slot) => (EntryHeader*)(slot & AddressMask);

    private static ulong Slot(EntryHeader* header)
    {
        var address = (ulong)header;
        if (address > AddressMask)
        {
            ThrowAddressTooHigh(address);
        }

        return (TagOf(header->Hash) << AddressBits) | address;
    }

    [DoesNotReturn]
    private static void ThrowAddressTooHigh(ulong address) =>
        throw new NotSupportedException($"An entry block's address 0x{address:X} does not fit the 48 bits the store's table keeps.");

    private static int BucketOf(ReadOnlySpan<ulong> buckets, EntryHeader* header)
    {
        var mask = buckets.Length - 1;
        var bucket = (int)header->Hash & mask;
        while ((buckets[bucket] & AddressMask) != (ulong)header)
        {
            bucket = (bucket + 1) & mask;
        }

        return bucket;
    }
}
