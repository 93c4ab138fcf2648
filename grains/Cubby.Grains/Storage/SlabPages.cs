using System.Numerics;

namespace Cubby.Grains.Storage;

/// <summary>
/// Memory for entry blocks of up to <see cref="MaxBlockBytes"/>, as memcached's slabs: 64 KiB pages from an
/// <see cref="EntryMemory"/>, each serving one <see cref="BlockSizes"/> class, carved into equal slots. A freed slot
/// serves only its class, and a page whose slots are all free gives its memory back to the system, so whatever sizes
/// come and go the memory held is the live blocks plus the free slots (<see cref="FreeBytes"/>). malloc instead kept the
/// holes between blocks of many sizes: under values of 64 B–4 KiB a 64 MiB budget held 195–231 MiB of RSS. Free slots build up when one class shrinks while
/// another grows; once they pass <see cref="SlackBytes"/> the evictor empties the sparsest page of the class with the
/// most (<see cref="TakeSparsestPage"/>) by moving its blocks to the class's other free slots, so they stay under the
/// slack plus less than a page for each class in use.
/// Thread-safe: the stores of a silo share one, a lock per class.
/// </summary>
internal sealed unsafe class SlabPages
{
    /// <summary>The bytes of a page.</summary>
    public const int PageBytes = 64 * 1024;

    /// <summary>The largest block a slab holds: at least eight to a page.</summary>
    public const int MaxBlockBytes = 8 * 1024;

    // Page objects are made sixteen at a time; each gets its memory when it first serves a class.
    private const int PagesPerGrowth = 16;

    private readonly EntryMemory _memory;
    private readonly SlabClass[] _classes;
    private readonly Lock _reserve = new();
    private readonly Stack<SlabPage> _unused = new();
    private SlabPage[] _pages = [];
    private long _residentBytes;
    private long _freeBytes;
    private long _pagesEmptied;

    /// <summary>Creates slabs that let free slots reach <paramref name="slackBytes"/> before sparse pages are emptied.</summary>
    public SlabPages(EntryMemory memory, long slackBytes)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(slackBytes);
        _memory = memory;
        SlackBytes = slackBytes;
        _classes = new SlabClass[BlockSizes.ClassOf(MaxBlockBytes) + 1];
        for (var sizeClass = 0; sizeClass < _classes.Length; sizeClass++)
        {
            _classes[sizeClass] = new SlabClass(BlockSizes.CapacityOf(sizeClass));
        }
    }

    /// <summary>The free slot bytes above which sparse pages are emptied.</summary>
    public long SlackBytes { get; }

    /// <summary>The bytes of the pages serving a class now; released pages are not counted.</summary>
    public long ResidentBytes => Volatile.Read(ref _residentBytes);

    /// <summary>The bytes of the free slots in those pages.</summary>
    public long FreeBytes => Volatile.Read(ref _freeBytes);

    /// <summary>Whether free slots exceed <see cref="SlackBytes"/>, so a sparse page should be emptied.</summary>
    public bool IsOverSlack => FreeBytes > SlackBytes;

    /// <summary>Pages emptied by draining them (<see cref="TakeSparsestPage"/>) and given back.</summary>
    public long PagesEmptied => Volatile.Read(ref _pagesEmptied);

    /// <summary>Whether a block of <paramref name="bytes"/> comes from a slab.</summary>
    public static bool Holds(long bytes) => bytes <= MaxBlockBytes;

    /// <summary>The page bytes each block of <paramref name="bytes"/> takes: its slot and its share of the page's unused tail.</summary>
    public static int FootprintOf(long bytes) => PageBytes / SlabClass.SlotsOf(BlockSizes.CapacityOf(BlockSizes.ClassOf(bytes)));

    /// <summary>A free slot for a block of <paramref name="bytes"/> (at most <see cref="MaxBlockBytes"/>); <paramref name="pageId"/> names its page for <see cref="Return"/>.</summary>
    public byte* Rent(long bytes, out int pageId)
    {
        var slab = _classes[BlockSizes.ClassOf(bytes)];
        lock (slab.Gate)
        {
            if (slab.Open.Count == 0)
            {
                Assign(TakeUnusedPage(), slab);
            }

            var page = slab.Open[^1];
            var slot = page.TakeSlot();
            if (page.Live == slab.SlotCount)
            {
                slab.Close(page);
            }

            slab.FreeBytes -= slab.Footprint;
            Interlocked.Add(ref _freeBytes, -slab.Footprint);
            pageId = page.Id;
            return (byte*)page.Address + ((nint)slot * slab.SlotBytes);
        }
    }

    /// <summary>Frees the slot of <paramref name="block"/>, which <see cref="Rent"/> gave with <paramref name="pageId"/>.</summary>
    public void Return(void* block, int pageId)
    {
        // A page with a live block never changes class, so its class is read safely before the lock.
        var page = Volatile.Read(ref _pages)[pageId];
        var slab = page.Slab!;
        lock (slab.Gate)
        {
            var wasFull = page.Live == slab.SlotCount;
            page.FreeSlot((int)(((byte*)block - (byte*)page.Address) / slab.SlotBytes));
            slab.FreeBytes += slab.Footprint;
            Interlocked.Add(ref _freeBytes, slab.Footprint);
            if (page.Draining)
            {
                return;
            }

            // An empty page goes back unless it is the class's only open one: a class hovering at a page boundary
            // would otherwise give a page back and fault it in again on every other write.
            if (page.Live == 0 && slab.Open.Count > 1)
            {
                Release(page);
            }
            else if (wasFull)
            {
                slab.Reopen(page);
            }
        }
    }

    /// <summary>
    /// The page with the fewest live blocks in the class with the most free slot bytes, marked as draining: no block is
    /// rented from it until <see cref="EndDraining"/>. The caller moves the blocks <see cref="LiveBlocks"/> lists.
    /// Null when no class has a whole page's worth of free slots.
    /// </summary>
    public SlabPage? TakeSparsestPage()
    {
        SlabClass? sparsest = null;
        foreach (var slab in _classes)
        {
            if (Volatile.Read(ref slab.FreeBytes) > (sparsest is null ? 0 : Volatile.Read(ref sparsest.FreeBytes)))
            {
                sparsest = slab;
            }
        }

        // Every class in use holds one partly filled page; emptying a page of a class with less than a page's worth of
        // free slots would only make it open another on its next write.
        if (sparsest is null || Volatile.Read(ref sparsest.FreeBytes) < PageBytes)
        {
            return null;
        }

        lock (sparsest.Gate)
        {
            SlabPage? emptiest = null;
            foreach (var page in sparsest.Pages)
            {
                if (!page.Draining && (emptiest is null || page.Live < emptiest.Live))
                {
                    emptiest = page;
                }
            }

            if (emptiest is not null)
            {
                emptiest.Draining = true;
                sparsest.Close(emptiest);
            }

            return emptiest;
        }
    }

    /// <summary>Writes the addresses of the live blocks of a draining <paramref name="page"/> to <paramref name="blocks"/>; returns how many.</summary>
    public static int LiveBlocks(SlabPage page, Span<nint> blocks)
    {
        var slab = page.Slab!;
        lock (slab.Gate)
        {
            var count = 0;
            for (var slot = page.NextLive(0); slot >= 0 && count < blocks.Length; slot = page.NextLive(slot + 1))
            {
                blocks[count++] = page.Address + ((nint)slot * slab.SlotBytes);
            }

            return count;
        }
    }

    /// <summary>Ends draining <paramref name="page"/>: gives it back if it is empty, else lets its free slots serve again.</summary>
    public void EndDraining(SlabPage page)
    {
        var slab = page.Slab!;
        lock (slab.Gate)
        {
            page.Draining = false;
            if (page.Live == 0)
            {
                Release(page);
                Interlocked.Increment(ref _pagesEmptied);
            }
            else if (page.Live < slab.SlotCount)
            {
                slab.Reopen(page);
            }
        }
    }

    /// <summary>The bytes of a slot of the draining <paramref name="page"/>.</summary>
    public static int SlotBytesOf(SlabPage page) => page.Slab!.SlotBytes;

    private void Assign(SlabPage page, SlabClass slab)
    {
        page.Slab = slab;
        page.Clear(slab.SlotCount);
        slab.Pages.Add(page);
        slab.Reopen(page);
        var free = (long)slab.SlotCount * slab.Footprint;
        slab.FreeBytes += free;
        Interlocked.Add(ref _freeBytes, free);
        Interlocked.Add(ref _residentBytes, PageBytes);
    }

    /// <summary>Takes an empty page out of its class and gives its memory back to the system. Runs under the class's lock.</summary>
    private void Release(SlabPage page)
    {
        var slab = page.Slab!;
        slab.Close(page);
        slab.Pages.Remove(page);
        var free = (long)slab.SlotCount * slab.Footprint;
        slab.FreeBytes -= free;
        Interlocked.Add(ref _freeBytes, -free);
        Interlocked.Add(ref _residentBytes, -PageBytes);
        page.Slab = null;
        SystemPages.Discard((void*)page.Address, PageBytes);
        lock (_reserve)
        {
            _unused.Push(page);
        }
    }

    private SlabPage TakeUnusedPage()
    {
        SlabPage? page;
        lock (_reserve)
        {
            if (!_unused.TryPop(out page))
            {
                var pages = new SlabPage[_pages.Length + PagesPerGrowth];
                _pages.CopyTo(pages, 0);
                for (var id = pages.Length - 1; id >= _pages.Length; id--)
                {
                    pages[id] = new SlabPage(id);
                    _unused.Push(pages[id]);
                }

                Volatile.Write(ref _pages, pages);
                page = _unused.Pop();
            }
        }

        _memory.Commit(page);
        return page;
    }

    /// <summary>The pages of one size class, and its lock.</summary>
    internal sealed class SlabClass(int slotBytes)
    {
        public readonly Lock Gate = new();
        public readonly int SlotBytes = slotBytes;
        public readonly int SlotCount = SlotsOf(slotBytes);
        public readonly int Footprint = PageBytes / SlotsOf(slotBytes);
        public readonly List<SlabPage> Pages = [];

        /// <summary>Pages with a free slot that are not draining; blocks are rented from the last.</summary>
        public readonly List<SlabPage> Open = [];

        public long FreeBytes;

        public static int SlotsOf(int slotBytes) => PageBytes / slotBytes;

        public void Reopen(SlabPage page)
        {
            if (page.OpenIndex < 0)
            {
                page.OpenIndex = Open.Count;
                Open.Add(page);
            }
        }

        public void Close(SlabPage page)
        {
            var index = page.OpenIndex;
            if (index < 0)
            {
                return;
            }

            var last = Open[^1];
            Open[index] = last;
            last.OpenIndex = index;
            Open.RemoveAt(Open.Count - 1);
            page.OpenIndex = -1;
        }
    }

    /// <summary>One page: its slots' occupancy, and the class it serves while it serves one.</summary>
    internal sealed class SlabPage(int id)
    {
        // Sized for the most slots an entry's class can have (its header alone takes a 64-byte slot), so reassigning a
        // page on the write path allocates nothing.
        private ulong[] _used = new ulong[PageBytes / 64 / 64];

        public int Id { get; } = id;

        /// <summary>Where the page's memory starts, while it has memory (<see cref="EntryMemory.Commit"/>).</summary>
        public nint Address { get; set; }

        public SlabClass? Slab { get; set; }

        public int Live { get; private set; }

        public int OpenIndex { get; set; } = -1;

        public bool Draining { get; set; }

        public void Clear(int slots)
        {
            var words = (slots + 63) / 64;
            if (_used.Length < words)
            {
                _used = new ulong[words];
            }
            else
            {
                Array.Clear(_used);
            }

            // Slots past the last are marked used, so TakeSlot never hands them out.
            for (var slot = slots; slot < _used.Length * 64; slot++)
            {
                _used[slot / 64] |= 1UL << (slot % 64);
            }

            Live = 0;
            Draining = false;
            OpenIndex = -1;
        }

        public int TakeSlot()
        {
            for (var word = 0; word < _used.Length; word++)
            {
                var free = ~_used[word];
                if (free != 0)
                {
                    var bit = BitOperations.TrailingZeroCount(free);
                    _used[word] |= 1UL << bit;
                    Live++;
                    return (word * 64) + bit;
                }
            }

            throw new InvalidOperationException("A page with no free slot was open.");
        }

        public void FreeSlot(int slot)
        {
            var mask = 1UL << (slot % 64);
            if ((_used[slot / 64] & mask) == 0)
            {
                throw new InvalidOperationException("The slot was already free.");
            }

            _used[slot / 64] &= ~mask;
            Live--;
        }

        /// <summary>The first live slot at or after <paramref name="from"/> among the page's real slots, or -1.</summary>
        public int NextLive(int from)
        {
            var slots = Slab!.SlotCount;
            for (var slot = from; slot < slots; slot++)
            {
                if ((_used[slot / 64] & (1UL << (slot % 64))) != 0)
                {
                    return slot;
                }
            }

            return -1;
        }
    }
}
