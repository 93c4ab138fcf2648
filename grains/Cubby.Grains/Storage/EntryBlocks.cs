namespace Cubby.Grains.Storage;

/// <summary>
/// Entry blocks in <see cref="BlockSizes"/> classes: slots of slab pages for blocks of up to
/// <see cref="SlabPages.MaxBlockBytes"/>, and blocks of their own for larger ones, recycled up to a byte limit
/// (<see cref="BlockRecycler{TBlock}"/>); their memory comes from an <see cref="EntryMemory"/>. The stores of a silo
/// share one; the blocks it still keeps are freed when it is collected.
/// </summary>
internal sealed unsafe class EntryBlocks(EntryMemory memory, long maxRetainedBytes, long slabSlackBytes)
{
    private readonly BlockRecycler<nint> _recycler = new(maxRetainedBytes);

    ~EntryBlocks() => ReleaseKept();

    /// <summary>The pages smaller blocks are carved from.</summary>
    public SlabPages Slabs { get; } = new(memory, slabSlackBytes);

    /// <summary>The bytes of freed large blocks kept for reuse.</summary>
    public long RetainedBytes => _recycler.RetainedBytes;

    /// <summary>The memory a block asked for <paramref name="bytes"/> takes.</summary>
    public long FootprintOf(long bytes) =>
        SlabPages.Holds(bytes) ? SlabPages.FootprintOf(bytes) : BlockSizes.RoundUp(bytes) + memory.BlockOverhead;

    /// <summary>A block of at least <paramref name="bytes"/>, its header's <see cref="EntryHeader.PageId"/> set; its other contents are undefined.</summary>
    public EntryHeader* Rent(long bytes)
    {
        if (SlabPages.Holds(bytes))
        {
            var slot = (EntryHeader*)Slabs.Rent(bytes, out var pageId);
            slot->PageId = pageId;
            return slot;
        }

        var sizeClass = BlockSizes.ClassOf(bytes);
        return sizeClass >= 0 && _recycler.TryTake(sizeClass, out var block)
            ? (EntryHeader*)block
            : memory.Allocate(BlockSizes.RoundUp(bytes));
    }

    /// <summary>Frees every large block kept for reuse.</summary>
    public void ReleaseKept() => _recycler.Drain(block => memory.Free((EntryHeader*)block));

    /// <summary>Takes back a block <see cref="Rent"/> gave for <paramref name="bytes"/>.</summary>
    public void Return(EntryHeader* header, long bytes)
    {
        if (header->PageId >= 0)
        {
            Slabs.Return(header, header->PageId);
            return;
        }

        var sizeClass = BlockSizes.ClassOf(bytes);
        if (sizeClass < 0 || !_recycler.TryKeep(sizeClass, (nint)header))
        {
            memory.Free(header);
        }
    }
}
