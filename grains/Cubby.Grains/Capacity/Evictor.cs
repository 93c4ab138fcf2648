using System.Buffers;
using Cubby.Grains.Storage;

namespace Cubby.Grains.Capacity;

/// <summary>
/// Makes room in the memory budget by evicting from the silo's shards, one entry at a time and one shard after
/// another, starting at a random one. A writer calls it from inside its own shard's turn when its charge does not
/// fit, so it never waits for another shard's turn: a busy shard is skipped and visited again on the next pass.
/// It also empties sparse slab pages (<see cref="SlabPages"/>) when free slots pass their slack, moving whatever lives
/// in them to free slots of the class's other pages: a class that shrank leaves its free slots spread over its pages,
/// where no other class can use them. Moving loses nothing, so a silo far below its budget never drops an entry for
/// it (a class that shrinks is common: a replica handed to another silo frees every block it held).
/// </summary>
internal sealed class Evictor(ShardCatalog catalog) : IMemoryReclaimer
{
    // Passes in a row that freed nothing while some shard was busy, before giving up: about a second, yielding the
    // first few times and then sleeping 1 ms. A busy shard's holder is itself mid-command, so it is free again within
    // microseconds; the bound only keeps a writer from waiting forever on a holder that waits for this writer's own
    // shard (MSETNX takes several turns).
    private const int MaxBusyPasses = 1000;
    private const int YieldingPasses = 10;

    // A write empties at most this many pages, and passes over a page's busy shards only while it can yield: the slack
    // is a soft bound, and the next write goes on where this one stopped.
    private const int MaxPagesPerWrite = 2;

    public bool MakeRoom(long bytes)
    {
        var budget = catalog.Budget;
        if (bytes > budget.Ceiling)
        {
            return false;
        }

        var slot = Random.Shared.Next(catalog.SlotCount);
        var visitedInVain = 0;
        var sawBusy = false;
        var busyPasses = 0;
        while (budget.Available < bytes)
        {
            var shard = catalog.Find(slot);
            slot = slot + 1 == catalog.SlotCount ? 0 : slot + 1;
            if (shard is null)
            {
                // never activated: nothing to evict
            }
            else if (!shard.TryEvictOne(catalog.Options.EvictionSamples, out var freed))
            {
                sawBusy = true;
            }
            else if (freed > 0)
            {
                visitedInVain = 0;
                sawBusy = false;
                continue;
            }

            if (++visitedInVain < catalog.SlotCount)
            {
                continue;
            }

            if (!sawBusy || ++busyPasses > MaxBusyPasses)
            {
                return false;
            }

            visitedInVain = 0;
            sawBusy = false;
            Wait(busyPasses);
        }

        return true;
    }

    public bool EmptySparsePages()
    {
        var slabs = catalog.Slabs;
        if (!slabs.IsOverSlack)
        {
            return false;
        }

        var moved = false;
        for (var pages = 0; pages < MaxPagesPerWrite && slabs.IsOverSlack; pages++)
        {
            if (slabs.TakeSparsestPage() is not { } page)
            {
                break;
            }

            try
            {
                moved |= MoveAll(page);
            }
            finally
            {
                slabs.EndDraining(page);
            }
        }

        return moved;
    }

    private static void Wait(int busyPasses)
    {
        if (busyPasses <= YieldingPasses)
        {
            Thread.Yield();
        }
        else
        {
            Thread.Sleep(1);
        }
    }

    /// <summary>Moves every entry out of a draining page, asking the shards of each block's slot by the key the block holds.</summary>
    private unsafe bool MoveAll(SlabPages.SlabPage page)
    {
        var blocks = ArrayPool<nint>.Shared.Rent(SlabPages.PageBytes / SlabPages.SlotBytesOf(page));
        try
        {
            // The key is read outside its shard's turn, so it may be torn; the shard checks that the entry it finds
            // lives in this very block. A draining page's slots are never rented again, so the read is of this page.
            var maxKeyBytes = SlabPages.SlotBytesOf(page) - sizeof(EntryHeader);
            var moved = false;
            for (var pass = 1; pass <= YieldingPasses; pass++)
            {
                var count = SlabPages.LiveBlocks(page, blocks);
                var sawBusy = false;
                for (var i = 0; i < count; i++)
                {
                    var header = (EntryHeader*)blocks[i];
                    var key = new ReadOnlySpan<byte>(header + 1, Math.Clamp(header->KeyLength, 0, maxKeyBytes));
                    switch (catalog.MoveBlock(key, blocks[i]))
                    {
                        case BlockMove.Moved or BlockMove.Removed:
                            moved = true;
                            break;
                        case BlockMove.Busy:
                            sawBusy = true;
                            break;
                    }
                }

                if (!sawBusy)
                {
                    break;
                }

                Wait(pass);
            }

            return moved;
        }
        finally
        {
            ArrayPool<nint>.Shared.Return(blocks);
        }
    }
}
