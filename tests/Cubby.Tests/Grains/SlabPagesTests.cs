using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class SlabPagesTests
{
    private const int Block = 1000;
    private static readonly int SlotBytes = BlockSizes.CapacityOf(BlockSizes.ClassOf(Block));
    private static readonly int SlotsPerPage = SlabPages.PageBytes / SlotBytes;

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public unsafe void Blocks_of_one_class_are_separate_slots_of_one_page_and_a_freed_slot_serves_again(StoreKind kind)
    {
        var slabs = new SlabPages(StoreKinds.Memory(kind), 0);
        var a = (nint)slabs.Rent(Block, out var pageA);
        var b = (nint)slabs.Rent(Block, out var pageB);

        Assert.Equal(pageA, pageB);
        Assert.True(Math.Abs(a - b) >= SlotBytes);
        Assert.Equal(SlabPages.PageBytes, slabs.ResidentBytes);
        Assert.Equal((SlotsPerPage - 2) * SlabPages.FootprintOf(Block), slabs.FreeBytes);

        slabs.Return((void*)a, pageA);
        Assert.Equal(a, (nint)slabs.Rent(Block, out _));
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public unsafe void A_page_whose_blocks_all_left_goes_back_unless_it_is_the_only_open_page_of_its_class(StoreKind kind)
    {
        var slabs = new SlabPages(StoreKinds.Memory(kind), 0);
        var first = RentMany(slabs, Block, SlotsPerPage);
        var extra = (nint)slabs.Rent(Block, out var extraPage);
        Assert.Equal(2 * SlabPages.PageBytes, slabs.ResidentBytes);

        ReturnAll(slabs, first);
        Assert.Equal(SlabPages.PageBytes, slabs.ResidentBytes);

        // Now the second page is its class's only open one: empty, it stays for the class's next block.
        slabs.Return((void*)extra, extraPage);
        Assert.Equal(SlabPages.PageBytes, slabs.ResidentBytes);
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public unsafe void Draining_takes_the_emptiest_page_of_the_class_with_the_most_free_space_and_rents_nothing_from_it(StoreKind kind)
    {
        var slabs = new SlabPages(StoreKinds.Memory(kind), 0);
        const int Small = 100;
        var smallSlots = SlabPages.PageBytes / BlockSizes.CapacityOf(BlockSizes.ClassOf(Small));
        var full = RentMany(slabs, Small, smallSlots);
        var sparse = RentMany(slabs, Small, 10);
        slabs.Rent(Block, out _);
        ReturnAll(slabs, full[..(smallSlots / 2)]);

        var page = slabs.TakeSparsestPage();

        Assert.NotNull(page);
        Assert.Equal(sparse[0].Page, page.Id);
        var live = new nint[smallSlots];
        Assert.Equal(sparse.Select(static b => b.Block).Order(), live[..SlabPages.LiveBlocks(page, live)].Order());
        for (var i = 0; i < smallSlots; i++)
        {
            slabs.Rent(Small, out var rentedFrom);
            Assert.NotEqual(page.Id, rentedFrom);
        }

        ReturnAll(slabs, sparse);
        var resident = slabs.ResidentBytes;
        slabs.EndDraining(page);
        Assert.Equal(1, slabs.PagesEmptied);
        Assert.Equal(resident - SlabPages.PageBytes, slabs.ResidentBytes);
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public unsafe void A_page_given_back_serves_the_next_class_that_needs_one_at_its_address_its_old_contents_gone_on_linux(StoreKind kind)
    {
        var slabs = new SlabPages(StoreKinds.Memory(kind), 0);
        var first = RentMany(slabs, Block, SlotsPerPage);
        slabs.Rent(Block, out _);
        foreach (var (block, _) in first)
        {
            new Span<byte>((void*)block, SlotBytes).Fill(0xAB);
        }

        var start = first.Min(static b => b.Block);
        Assert.Equal(0, start % Environment.SystemPageSize);
        ReturnAll(slabs, first);

        const int Other = 300;
        var other = (nint)slabs.Rent(Other, out var otherPage);

        Assert.Equal(first[0].Page, otherPage);
        Assert.Equal(start, other);
        if (OperatingSystem.IsLinux())
        {
            // madvise(MADV_DONTNEED) dropped the page's memory, so the system no longer held it: the next touch faults
            // in zeroed memory.
            Assert.True(new ReadOnlySpan<byte>((void*)start, SlabPages.PageBytes).IndexOfAnyExcept((byte)0) < 0, "the page's memory was not given back");
        }
    }

    [Fact]
    public unsafe void Managed_blocks_too_large_for_a_slab_are_separate_arrays_named_by_a_negative_page_id()
    {
        var memory = new ManagedEntryMemory();
        const int Bytes = 20_000;
        var a = memory.Allocate(Bytes);
        var b = memory.Allocate(Bytes);
        Payload(a, Bytes).Fill(1);
        Payload(b, Bytes).Fill(2);

        Assert.True(a->PageId < 0 && b->PageId < 0 && a->PageId != b->PageId);
        Assert.True(Payload(a, Bytes).IndexOfAnyExcept((byte)1) < 0);
        memory.Free(a);
        var c = memory.Allocate(Bytes);
        Payload(c, Bytes).Fill(3);
        GC.Collect();
        Assert.True(Payload(b, Bytes).IndexOfAnyExcept((byte)2) < 0);
        Assert.True(Payload(c, Bytes).IndexOfAnyExcept((byte)3) < 0);
        memory.Free(b);
        memory.Free(c);
    }

    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public async Task Threads_renting_and_returning_blocks_of_many_sizes_never_get_overlapping_slots(StoreKind kind)
    {
        var slabs = new SlabPages(StoreKinds.Memory(kind), 0);
        var workers = Enumerable.Range(1, 4).Select(worker => Task.Run(() => Churn(slabs, worker))).ToArray();

        await Task.WhenAll(workers).WaitAsync(TimeSpan.FromMinutes(1));

        // Every block is back: each class keeps at most its one open page, all of it free but the tail.
        Assert.InRange(slabs.ResidentBytes - slabs.FreeBytes, 0, slabs.ResidentBytes / 8);
        Assert.InRange(slabs.ResidentBytes, SlabPages.PageBytes, (BlockSizes.ClassOf(SlabPages.MaxBlockBytes) + 1L) * SlabPages.PageBytes);
    }

    /// <summary>Rents and returns blocks of random sizes, each filled with a mark that must be intact when it goes back.</summary>
    private static unsafe void Churn(SlabPages slabs, int worker)
    {
        var random = new Random(worker);
        var held = new List<(nint Block, int Page, int Bytes, byte Mark)>();
        for (var step = 0; step < 20_000; step++)
        {
            if (held.Count > 0 && (held.Count > 200 || random.Next(2) == 0))
            {
                var index = random.Next(held.Count);
                var (block, page, bytes, mark) = held[index];
                Assert.True(new ReadOnlySpan<byte>((void*)block, bytes).IndexOfAnyExcept(mark) < 0, "another block overlapped this one");
                slabs.Return((void*)block, page);
                held[index] = held[^1];
                held.RemoveAt(held.Count - 1);
            }
            else
            {
                var bytes = random.Next(64, SlabPages.MaxBlockBytes + 1);
                var block = (nint)slabs.Rent(bytes, out var page);
                var mark = (byte)((worker * 50) + (step % 50));
                new Span<byte>((void*)block, bytes).Fill(mark);
                held.Add((block, page, bytes, mark));
            }
        }

        foreach (var (block, page, _, _) in held)
        {
            slabs.Return((void*)block, page);
        }
    }

    private static unsafe Span<byte> Payload(EntryHeader* header, int bytes) => new((byte*)(header + 1), bytes - sizeof(EntryHeader));

    private static unsafe (nint Block, int Page)[] RentMany(SlabPages slabs, int bytes, int count) =>
        [.. Enumerable.Range(0, count).Select(_ => ((nint)slabs.Rent(bytes, out var page), page))];

    private static unsafe void ReturnAll(SlabPages slabs, IEnumerable<(nint Block, int Page)> blocks)
    {
        foreach (var (block, page) in blocks)
        {
            slabs.Return((void*)block, page);
        }
    }
}
