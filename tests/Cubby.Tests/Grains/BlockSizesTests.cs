using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class BlockSizesTests
{
    // The native store's smaller blocks are slab slots (SlabPagesTests); only larger ones go through the recycler.
    private const int LargerThanASlabHolds = SlabPages.MaxBlockBytes + 1000;

    [Fact]
    public void Every_size_up_to_the_largest_class_gets_the_smallest_class_that_holds_it_within_an_eighth()
    {
        var previous = 0;
        for (var bytes = 1; bytes <= BlockSizes.MaxClassed; bytes += bytes < 8192 ? 1 : 97)
        {
            var sizeClass = BlockSizes.ClassOf(bytes);
            var capacity = BlockSizes.CapacityOf(sizeClass);
            Assert.InRange(sizeClass, 0, BlockSizes.ClassCount - 1);
            Assert.InRange(capacity, bytes, Math.Max(bytes + 15, bytes + (bytes / 8)));
            Assert.True(sizeClass == 0 || BlockSizes.CapacityOf(sizeClass - 1) < bytes, $"{bytes} bytes could use class {sizeClass - 1}");
            Assert.True(capacity >= previous);
            Assert.Equal(sizeClass, BlockSizes.ClassOf(capacity));
            previous = capacity;
        }

        Assert.Equal(BlockSizes.MaxClassed, BlockSizes.CapacityOf(BlockSizes.ClassCount - 1));
    }

    [Fact]
    public void Larger_blocks_have_no_class_and_their_exact_size()
    {
        Assert.Equal(-1, BlockSizes.ClassOf(BlockSizes.MaxClassed + 1L));
        Assert.Equal(BlockSizes.MaxClassed + 1L, BlockSizes.RoundUp(BlockSizes.MaxClassed + 1L));
        Assert.Equal(5L << 30, BlockSizes.RoundUp(5L << 30));
    }

    [Fact]
    public void A_recycler_hands_back_kept_blocks_of_the_same_class_and_keeps_no_more_than_its_limit()
    {
        var limit = 3 * BlockSizes.CapacityOf(BlockSizes.ClassOf(1000));
        var recycler = new BlockRecycler<byte[]>(limit);
        var sizeClass = BlockSizes.ClassOf(1000);
        var blocks = Enumerable.Range(0, 4).Select(_ => new byte[BlockSizes.CapacityOf(sizeClass)]).ToArray();

        Assert.True(recycler.TryKeep(sizeClass, blocks[0]));
        Assert.True(recycler.TryKeep(sizeClass, blocks[1]));
        Assert.True(recycler.TryKeep(sizeClass, blocks[2]));
        Assert.False(recycler.TryKeep(sizeClass, blocks[3]));
        Assert.Equal(limit, recycler.RetainedBytes);

        Assert.False(recycler.TryTake(sizeClass + 1, out _));
        Assert.True(recycler.TryTake(sizeClass, out var taken));
        Assert.Contains(taken, blocks[..3]);
        Assert.Equal(limit - blocks[0].Length, recycler.RetainedBytes);

        var drained = new List<byte[]>();
        recycler.Drain(drained.Add);
        Assert.Equal(2, drained.Count);
        Assert.Equal(0, recycler.RetainedBytes);
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void Stores_sharing_blocks_reuse_what_one_of_them_freed(StoreKind kind)
    {
        var (createStore, retainedBytes, _) = SharedBlocks(kind);
        var value = new byte[LargerThanASlabHolds];
        using var first = createStore();
        using var second = createStore();
        first.Add("a"u8, value, default);
        first.RemoveAt(0);
        Assert.True(retainedBytes() > 0);
        second.Add("b"u8, value, default);
        Assert.Equal(0, retainedBytes());
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public void Releasing_the_kept_blocks_keeps_none_and_the_stores_go_on_keeping_new_ones(StoreKind kind)
    {
        var (createStore, retainedBytes, releaseKept) = SharedBlocks(kind);
        var value = Enumerable.Range(0, LargerThanASlabHolds).Select(i => (byte)i).ToArray();
        using var store = createStore();
        store.Add("a"u8, value, default);
        store.Add("b"u8, value, default);
        store.RemoveAt(store.IndexOf("a"u8));
        Assert.True(retainedBytes() > 0);

        releaseKept();

        Assert.Equal(0, retainedBytes());
        store.Add("c"u8, value, default);
        Assert.Equal(value, store.ValueAt(store.IndexOf("c"u8)).ToArray());
        Assert.Equal(value, store.ValueAt(store.IndexOf("b"u8)).ToArray());
        store.RemoveAt(store.IndexOf("c"u8));
        Assert.True(retainedBytes() > 0);
    }

    /// <summary>Makes stores of <paramref name="kind"/> that share one recycler, reads what it retains, and releases it.</summary>
    private static (Func<EntryStore> CreateStore, Func<long> RetainedBytes, Action ReleaseKept) SharedBlocks(StoreKind kind)
    {
        var blocks = new EntryBlocks(StoreKinds.Memory(kind), 1 << 20, SlabPages.PageBytes);
        return (() => new EntryStore(blocks), () => blocks.RetainedBytes, blocks.ReleaseKept);
    }
}
