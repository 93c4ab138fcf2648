using System.Runtime.CompilerServices;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class ManagedEntryMemoryTests
{
    [Fact]
    public void A_page_given_back_leaves_its_array_to_the_gc_and_gets_a_new_one_when_it_serves_again()
    {
        var memory = new ManagedEntryMemory();
        var page = new SlabPages.SlabPage(0);
        var first = CommitAndWatch(memory, page);

        memory.Decommit(page);
        Assert.Equal(0, page.Address);
        Assert.Null(page.Memory);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Assert.False(first.IsAlive, "the GC could not collect the page's array after it was given back");

        memory.Commit(page);
        Assert.NotEqual(0, page.Address);
        Assert.Equal(SlabPages.PageBytes, ((byte[])page.Memory!).Length);
    }

    [Fact]
    public unsafe void Blocks_of_their_own_are_separate_writable_arrays_named_by_a_negative_page_id()
    {
        var memory = new ManagedEntryMemory();
        var a = memory.Allocate(20_000);
        var b = memory.Allocate(20_000);
        new Span<byte>(a, 20_000)[sizeof(EntryHeader)..].Fill(1);
        new Span<byte>(b, 20_000)[sizeof(EntryHeader)..].Fill(2);

        Assert.True(a->PageId < 0 && b->PageId < 0 && a->PageId != b->PageId);
        Assert.True(new Span<byte>(a, 20_000)[sizeof(EntryHeader)..].IndexOfAnyExcept((byte)1) < 0);
        memory.Free(a);
        var c = memory.Allocate(20_000);
        Assert.True(new Span<byte>(b, 20_000)[sizeof(EntryHeader)..].IndexOfAnyExcept((byte)2) < 0);
        memory.Free(b);
        memory.Free(c);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static WeakReference CommitAndWatch(ManagedEntryMemory memory, SlabPages.SlabPage page)
    {
        memory.Commit(page);
        Assert.NotEqual(0, page.Address);
        return new WeakReference(page.Memory);
    }
}
