using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// Entry memory in arrays on the GC's pinned heap, so the GC owns and counts it (<c>GCHeapHardLimit</c>, heap dumps) and
/// never copies it. Each slab page is an array of its own, a system page larger than the slab page so the slab page
/// starts on a system page boundary: a page that empties keeps its array and gives its memory back with <c>madvise</c>
/// (<see cref="SystemPages"/>), as native pages do. Handing emptied arrays to the GC instead let the pinned heap grow
/// from 78 to 106 MiB in three minutes of the soak with no full collection to reclaim them. Larger blocks are arrays of
/// their own, kept reachable through a table their header's page id indexes.
/// </summary>
internal sealed unsafe class ManagedEntryMemory : EntryMemory
{
    /// <summary>An array's object header, method table and length, which a block of its own costs beyond its size.</summary>
    private const int ArrayOverhead = 24;

    private static readonly int SystemPageBytes = Environment.SystemPageSize;

    private readonly Lock _gate = new();
    private readonly Stack<int> _freeIds = new();
    private byte[]?[] _blocks = new byte[]?[16];
    private int _ids;

    public override int BlockOverhead => ArrayOverhead;

    public override void Commit(SlabPages.SlabPage page)
    {
        if (page.Memory is null)
        {
            var array = GC.AllocateUninitializedArray<byte>(SlabPages.PageBytes + SystemPageBytes, pinned: true);
            page.Memory = array;
            page.Address = (AddressOf(array) + SystemPageBytes - 1) & ~(nint)(SystemPageBytes - 1);
        }
    }

    public override void Decommit(SlabPages.SlabPage page) => SystemPages.Discard((void*)page.Address, SlabPages.PageBytes);

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

    private static nint AddressOf(byte[] pinned) => (nint)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(pinned));
}
