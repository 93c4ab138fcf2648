using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// Native memory for entry blocks: slots of slab pages for blocks of up to <see cref="SlabPages.MaxBlockBytes"/>, and
/// malloc for larger ones, in <see cref="BlockSizes"/> classes, recycling freed blocks up to a byte limit
/// (<see cref="BlockRecycler{TBlock}"/>). The stores of a silo share one; the blocks it still keeps are freed when it is collected.
/// </summary>
internal sealed unsafe class NativeBlocks(long maxRetainedBytes, long slabSlackBytes)
{
    /// <summary>glibc's chunk header and alignment, which a malloc block costs beyond its size.</summary>
    private const int MallocOverhead = 16;

    private readonly BlockRecycler<nint> _recycler = new(maxRetainedBytes);

    ~NativeBlocks() => ReleaseKept();

    /// <summary>The pages smaller blocks are carved from.</summary>
    public SlabPages Slabs { get; } = new(slabSlackBytes);

    /// <summary>The bytes of freed large blocks kept for reuse.</summary>
    public long RetainedBytes => _recycler.RetainedBytes;

    /// <summary>The memory a block asked for <paramref name="bytes"/> takes.</summary>
    public static long FootprintOf(long bytes) =>
        SlabPages.Holds(bytes) ? SlabPages.FootprintOf(bytes) : BlockSizes.RoundUp(bytes) + MallocOverhead;

    /// <summary>A block of at least <paramref name="bytes"/>, its header's <see cref="EntryHeader.PageId"/> set; its other contents are undefined.</summary>
    public EntryHeader* Rent(long bytes)
    {
        EntryHeader* header;
        int pageId;
        if (SlabPages.Holds(bytes))
        {
            header = (EntryHeader*)Slabs.Rent(bytes, out pageId);
        }
        else
        {
            var sizeClass = BlockSizes.ClassOf(bytes);
            header = sizeClass >= 0 && _recycler.TryTake(sizeClass, out var block)
                ? (EntryHeader*)block
                : (EntryHeader*)NativeMemory.Alloc((nuint)BlockSizes.RoundUp(bytes));
            pageId = -1;
        }

        header->PageId = pageId;
        return header;
    }

    /// <summary>Frees every large block kept for reuse.</summary>
    public void ReleaseKept() => _recycler.Drain(static block => NativeMemory.Free((void*)block));

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
            NativeMemory.Free(header);
        }
    }
}
