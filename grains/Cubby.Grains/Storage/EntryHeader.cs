using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// The start of every entry block: the entry's metadata, its key's hash (so rehashing and removal never hash a key
/// again), its dense index in its store (so a lookup through the table needs no trip through the dense array) and
/// the two lengths; the key and then the value follow it.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal struct EntryHeader
{
    public EntryMetadata Metadata;
    public uint Hash;
    public int Index;
    public int KeyLength;
    public int ValueLength;

    /// <summary>The slab page holding the block (<see cref="SlabPages"/>), or a negative value naming a block of its own to its <see cref="EntryMemory"/>.</summary>
    public int PageId;

    /// <summary>The bytes of a block holding a key and a value of these lengths.</summary>
    public static unsafe long BlockBytes(int keyLength, int valueLength) => sizeof(EntryHeader) + (long)keyLength + valueLength;

    /// <summary>The key of the entry whose block is <paramref name="header"/>.</summary>
    public static unsafe ReadOnlySpan<byte> KeyOf(EntryHeader* header) => new(header + 1, header->KeyLength);

    /// <summary>The value of the entry whose block is <paramref name="header"/>.</summary>
    public static unsafe Span<byte> ValueOf(EntryHeader* header) => new((byte*)(header + 1) + header->KeyLength, header->ValueLength);
}
