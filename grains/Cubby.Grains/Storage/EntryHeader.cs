using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// The start of every entry block, in both stores: the entry's metadata, its key's hash (so probing and rehashing never
/// hash a key again) and the two lengths; the key and then the value follow it.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal struct EntryHeader
{
    public EntryMetadata Metadata;
    public uint Hash;
    public int KeyLength;
    public int ValueLength;

    /// <summary>The slab page holding the block (<see cref="SlabPages"/>), or a negative value naming a block of its own to its <see cref="EntryMemory"/>; it fills what was padding.</summary>
    public int PageId;

    /// <summary>The bytes of a block holding a key and a value of these lengths.</summary>
    public static unsafe long BlockBytes(int keyLength, int valueLength) => sizeof(EntryHeader) + (long)keyLength + valueLength;
}
