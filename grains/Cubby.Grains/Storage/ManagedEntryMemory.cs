using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// Entry memory in arrays on the GC's pinned heap, so the GC owns and counts it (<c>GCHeapHardLimit</c>, heap dumps) and
/// never copies it. A chunk of slab pages is one array, a system page longer than the chunk so its pages start on a
/// system page boundary and an emptied one can be given back as native pages are. Handing emptied pages to the GC
/// instead, one array each, let the pinned heap grow from 78 to 106 MiB in three minutes of the soak with no full
/// collection to reclaim them. Larger blocks are arrays of their own, kept reachable through a table their header's
/// page id indexes.
/// </summary>
internal sealed unsafe class ManagedEntryMemory : EntryMemory
{
    /// <summary>An array's object header, method table and length, which a block of its own costs beyond its size.</summary>
    private const int ArrayOverhead = 24;

    private static readonly int SystemPageBytes = Environment.SystemPageSize;

    private readonly List<byte[]> _chunks = [];
    private readonly Lock _gate = new();
    private readonly Stack<int> _freeIds = new();
    private byte[]?[] _blocks = new byte[]?[16];
    private int _ids;

    public override int BlockOverhead => ArrayOverhead;

    public override EntryHeader* Allocate(long bytes)
    {
        var array = GC.AllocateUninitializedArray<byte>(checked((int)bytes), pinned: true);
        int id;
        lock (_gate)
        {
            if (!_freeIds.TryPop(out id))
            {
                id = _ids++;
                if (id == _blocks.Length)
                {
                    Array.Resize(ref _blocks, _blocks.Length * 2);
                }
            }

            _blocks[id] = array;
        }

        var header = (EntryHeader*)AddressOf(array);
        header->PageId = -2 - id;
        return header;
    }

    public override void Free(EntryHeader* header)
    {
        var id = -2 - header->PageId;
        lock (_gate)
        {
            _blocks[id] = null;
            _freeIds.Push(id);
        }
    }

    protected override nint AllocateChunk()
    {
        var array = GC.AllocateUninitializedArray<byte>(ChunkBytes + SystemPageBytes, pinned: true);
        _chunks.Add(array);
        return (AddressOf(array) + SystemPageBytes - 1) & ~(nint)(SystemPageBytes - 1);
    }

    private static nint AddressOf(byte[] pinned) => (nint)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(pinned));
}
