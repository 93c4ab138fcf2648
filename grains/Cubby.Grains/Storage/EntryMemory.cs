namespace Cubby.Grains.Storage;

/// <summary>
/// Where a silo's entry blocks live (<see cref="EntryBlocks"/>): the memory behind each slab page, and blocks too large
/// for a slab. <see cref="NativeEntryMemory"/> keeps them outside the GC heap; <see cref="ManagedEntryMemory"/> keeps
/// them in arrays on the GC's pinned heap. Slab pages are carved from chunks of 16, so a large cache is a few thousand
/// allocations, not one per page. A page keeps its address for good: when it empties, <see cref="SlabPages"/> gives its
/// memory back to the system whoever owns the chunk. Thread-safe: the stores of a silo share one.
/// </summary>
internal abstract unsafe class EntryMemory
{
    /// <summary>The bytes of a chunk: sixteen slab pages.</summary>
    protected const int ChunkBytes = PagesPerChunk * SlabPages.PageBytes;

    private const int PagesPerChunk = 16;

    private readonly Lock _gate = new();
    private nint _nextPage;
    private int _pagesLeftInChunk;

    /// <summary>The bytes a block of its own costs beyond its size: the allocator's header and alignment.</summary>
    public abstract int BlockOverhead { get; }

    /// <summary>Gives <paramref name="page"/> its <see cref="SlabPages.PageBytes"/> of memory, unless it has an address already.</summary>
    public void Commit(SlabPages.SlabPage page)
    {
        if (page.Address != 0)
        {
            return;
        }

        lock (_gate)
        {
            if (_pagesLeftInChunk == 0)
            {
                _nextPage = AllocateChunk();
                _pagesLeftInChunk = PagesPerChunk;
            }

            page.Address = _nextPage;
            _nextPage += SlabPages.PageBytes;
            _pagesLeftInChunk--;
        }
    }

    /// <summary>A block of its own of <paramref name="bytes"/>, its header's <see cref="EntryHeader.PageId"/> set to a negative value <see cref="Free"/> reads.</summary>
    public abstract EntryHeader* Allocate(long bytes);

    /// <summary>Frees a block <see cref="Allocate"/> gave.</summary>
    public abstract void Free(EntryHeader* header);

    /// <summary>
    /// <see cref="ChunkBytes"/> of memory starting on a system page boundary, kept for as long as this memory lives.
    /// Called under a lock.
    /// </summary>
    protected abstract nint AllocateChunk();
}
