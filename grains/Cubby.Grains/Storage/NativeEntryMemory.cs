using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// Entry memory outside the GC heap: millions of entries are nothing for the GC to mark or compact, so collections stay
/// short however much is cached. Larger blocks come from malloc. Chunks are freed when the memory is collected.
/// </summary>
internal sealed unsafe class NativeEntryMemory : EntryMemory
{
    /// <summary>glibc's chunk header and alignment, which a malloc block costs beyond its size.</summary>
    private const int MallocOverhead = 16;

    private readonly List<nint> _chunks = [];

    ~NativeEntryMemory()
    {
        foreach (var chunk in _chunks)
        {
            NativeMemory.AlignedFree((void*)chunk);
        }
    }

    public override int BlockOverhead => MallocOverhead;

    public override EntryHeader* Allocate(long bytes)
    {
        var header = (EntryHeader*)NativeMemory.Alloc((nuint)bytes);
        header->PageId = -1;
        return header;
    }

    public override void Free(EntryHeader* header) => NativeMemory.Free(header);

    protected override nint AllocateChunk()
    {
        var chunk = (nint)NativeMemory.AlignedAlloc(ChunkBytes, SlabPages.PageBytes);
        _chunks.Add(chunk);
        return chunk;
    }
}
