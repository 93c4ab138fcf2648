using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// Entry memory in arrays on the GC's pinned heap, so the GC owns and counts it (<c>GCHeapHardLimit</c>, heap dumps) and
/// never copies it. Each slab page is an array of its own: every page the same size, so the hole a dropped page leaves
/// fits the next one exactly, where arrays of every entry size left holes only full collections reused (a 64 MiB
/// budget held 235–241 MiB of RSS under the soak's mixed sizes). A page that empties is dropped for the GC to collect.
/// Larger blocks are arrays of their own, kept reachable through a table their header's page id indexes.
/// </summary>
internal sealed unsafe class ManagedEntryMemory : EntryMemory
{
    /// <summary>An array's object header, method table and length, which a block of its own costs beyond its size.</summary>
    private const int ArrayOverhead = 24;

    private readonly Lock _gate = new();
    private readonly Stack<int> _freeIds = new();
    private byte[]?[] _blocks = new byte[]?[16];
    private int _ids;

    public override int BlockOverhead => ArrayOverhead;

    public override void Commit(SlabPages.SlabPage page)
    {
        if (page.Memory is null)
        {
            var array = GC.AllocateUninitializedArray<byte>(SlabPages.PageBytes, pinned: true);
            page.Memory = array;
            page.Address = AddressOf(array);
        }
    }

    public override void Decommit(SlabPages.SlabPage page)
    {
        page.Memory = null;
        page.Address = 0;
    }

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
