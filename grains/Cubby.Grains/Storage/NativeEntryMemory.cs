using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// Entry memory outside the GC heap: millions of entries are nothing for the GC to mark or compact, so collections stay
/// short however much is cached. Slab pages are carved from 1 MiB chunks, so a large cache is a few thousand mappings,
/// not one per page; a page that empties keeps its address and gives its memory back with <c>madvise</c>
/// (<see cref="SystemPages"/>). Larger blocks come from malloc. Chunks are freed when the memory is collected.
/// </summary>
internal sealed unsafe class NativeEntryMemory : EntryMemory
{
    /// <summary>glibc's chunk header and alignment, which a malloc block costs beyond its size.</summary>
    private const int MallocOverhead = 16;

    private const int PagesPerChunk = 16;

    private readonly Lock _gate = new();
    private readonly List<nint> _chunks = [];
    private int _pagesLeftInChunk;

    ~NativeEntryMemory()
    {
        foreach (var chunk in _chunks)
        {
            NativeMemory.AlignedFree((void*)chunk);
        }
    }

    public override int BlockOverhead => MallocOverhead;

    public override void Commit(SlabPages.SlabPage page)
    {
        if (page.Address != 0)
        {
            return;
        }

        lock (_gate)
        {
            if (_pagesLeftInChunk == 0)
            {
                _chunks.Add((nint)NativeMemory.AlignedAlloc(PagesPerChunk * SlabPages.PageBytes, SlabPages.PageBytes));
                _pagesLeftInChunk = PagesPerChunk;
            }

            page.Address = _chunks[^1] + ((nint)(PagesPerChunk - _pagesLeftInChunk--) * SlabPages.PageBytes);
        }
    }

    public override void Decommit(SlabPages.SlabPage page) => SystemPages.Discard((void*)page.Address, SlabPages.PageBytes);

    public override EntryHeader* Allocate(long bytes)
    {
        var header = (EntryHeader*)NativeMemory.Alloc((nuint)bytes);
        header->PageId = -1;
        return header;
    }

    public override void Free(EntryHeader* header) => NativeMemory.Free(header);
}
