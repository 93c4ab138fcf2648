using System.Runtime.InteropServices;

namespace Cubby.Grains.Storage;

/// <summary>
/// Native memory for entry blocks, in <see cref="BlockSizes"/> classes, recycling freed blocks up to a byte limit
/// (<see cref="BlockRecycler{TBlock}"/>). The stores of a silo share one; the blocks it still keeps are freed when it is collected.
/// </summary>
internal sealed unsafe class NativeBlocks(long maxRetainedBytes)
{
    private readonly BlockRecycler<nint> _recycler = new(maxRetainedBytes);

    ~NativeBlocks() => ReleaseKept();

    /// <summary>The bytes of freed blocks kept for reuse.</summary>
    public long RetainedBytes => _recycler.RetainedBytes;

    /// <summary>A block of <see cref="BlockSizes.RoundUp"/>(<paramref name="bytes"/>) bytes.</summary>
    public void* Rent(long bytes)
    {
        var sizeClass = BlockSizes.ClassOf(bytes);
        return sizeClass >= 0 && _recycler.TryTake(sizeClass, out var block)
            ? (void*)block
            : NativeMemory.Alloc((nuint)BlockSizes.RoundUp(bytes));
    }

    /// <summary>Frees every block kept for reuse.</summary>
    public void ReleaseKept() => _recycler.Drain(static block => NativeMemory.Free((void*)block));

    /// <summary>Takes back a block <see cref="Rent"/> gave for <paramref name="bytes"/>.</summary>
    public void Return(void* block, long bytes)
    {
        var sizeClass = BlockSizes.ClassOf(bytes);
        if (sizeClass < 0 || !_recycler.TryKeep(sizeClass, (nint)block))
        {
            NativeMemory.Free(block);
        }
    }
}
