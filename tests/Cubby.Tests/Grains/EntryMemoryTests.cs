using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class EntryMemoryTests
{
    [Theory]
    [InlineData(StoreKind.Native)]
    [InlineData(StoreKind.Managed)]
    public unsafe void A_page_given_back_keeps_its_address_and_its_memory_comes_back_zeroed_on_linux(StoreKind kind)
    {
        var memory = StoreKinds.Memory(kind);
        var page = new SlabPages.SlabPage(0);
        memory.Commit(page);
        var address = page.Address;
        Assert.Equal(0, address % Environment.SystemPageSize);
        var contents = new Span<byte>((void*)address, SlabPages.PageBytes);
        contents.Fill(0xAB);

        EntryMemory.Decommit(page);
        memory.Commit(page);

        Assert.Equal(address, page.Address);
        if (OperatingSystem.IsLinux())
        {
            // madvise(MADV_DONTNEED) dropped the pages: the next touch faults in zeroed ones, so RSS no longer held them.
            Assert.True(contents.IndexOfAnyExcept((byte)0) < 0, "the page's memory was not given back to the system");
        }

        contents.Fill(0xCD);
        Assert.True(contents.IndexOfAnyExcept((byte)0xCD) < 0);
        GC.KeepAlive(page);
    }

    [Fact]
    public unsafe void Managed_blocks_of_their_own_are_separate_writable_arrays_named_by_a_negative_page_id()
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

    private static unsafe Span<byte> Payload(EntryHeader* header, int bytes) => new((byte*)(header + 1), bytes - sizeof(EntryHeader));
}
