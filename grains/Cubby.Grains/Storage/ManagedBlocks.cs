namespace Cubby.Grains.Storage;

/// <summary>
/// Entry arrays in <see cref="BlockSizes"/> classes, recycling freed arrays up to a byte limit
/// (<see cref="BlockRecycler{TBlock}"/>), so a full managed store's churn reuses its arrays instead of handing them to
/// the GC. The stores of a silo share one.
/// The arrays live on the pinned object heap. An entry lives until it is evicted, so in the young generations it was
/// only copied twice on its way to the oldest, and the regions it passed through stayed committed: a 64 MiB budget
/// grew RSS by 76–81 MiB with young arrays and by 67–69 MiB with pinned ones, under the same 10× writes.
/// </summary>
internal sealed class ManagedBlocks(long maxRetainedBytes)
{
    private readonly BlockRecycler<byte[]> _recycler = new(maxRetainedBytes);

    /// <summary>The bytes of freed arrays kept for reuse.</summary>
    public long RetainedBytes => _recycler.RetainedBytes;

    /// <summary>The length of the array <see cref="Rent"/> gives for <paramref name="length"/> bytes.</summary>
    public static int ArrayLength(int length) => (int)BlockSizes.RoundUp(length);

    /// <summary>An array of <see cref="ArrayLength"/>(<paramref name="length"/>) bytes; its contents are undefined.</summary>
    public byte[] Rent(int length)
    {
        var sizeClass = BlockSizes.ClassOf(length);
        return sizeClass >= 0 && _recycler.TryTake(sizeClass, out var array)
            ? array
            : GC.AllocateUninitializedArray<byte>(ArrayLength(length), pinned: true);
    }

    /// <summary>Lets the GC have every array kept for reuse.</summary>
    public void ReleaseKept() => _recycler.Drain(static _ => { });

    /// <summary>Takes back an array <see cref="Rent"/> gave; the GC collects it if the limit is reached.</summary>
    public void Return(byte[] array)
    {
        if (BlockSizes.ClassOf(array.Length) is var sizeClass and >= 0)
        {
            _recycler.TryKeep(sizeClass, array);
        }
    }
}
