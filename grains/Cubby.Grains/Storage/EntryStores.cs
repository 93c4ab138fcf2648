using Cubby.Grains.Hosting;

namespace Cubby.Grains.Storage;

/// <summary>
/// The entry stores of a silo's shards: how to make one, the slab pages they carve their blocks from, and the freed
/// large blocks they share for reuse, which <see cref="ReleaseKeptBlocks"/> gives up (MEMORY PURGE). Their blocks live
/// in <paramref name="memory"/>; up to <paramref name="keptForReuse"/> bytes of freed large blocks are kept, and free
/// slab slots reach <paramref name="slabSlack"/> bytes before sparse pages are emptied.
/// </summary>
internal sealed class EntryStores(EntryMemory memory, long keptForReuse, long slabSlack)
{
    private readonly EntryBlocks _blocks = new(memory, keptForReuse, slabSlack);

    /// <summary>The slab pages the stores carve their blocks from.</summary>
    public SlabPages Slabs => _blocks.Slabs;

    /// <summary>
    /// The free slab slot bytes stores for a budget of <paramref name="budgetBytes"/> let build up before they empty
    /// sparse pages: 1/16 of the budget, at least 2 MiB. Emptying a page evicts what lives in it, out of LRU order: under
    /// the soak's 64 B-4 KiB values a 16 MiB silo with 1 MiB of slack emptied 160 pages a second, a 64 MiB one with
    /// 4 MiB emptied one in 7 s.
    /// </summary>
    public static long SlabSlackBytesFor(long budgetBytes) => Math.Max(budgetBytes / 16, 2L * 1024 * 1024);

    /// <summary>Stores in native memory (<see cref="NativeEntryMemory"/>).</summary>
    public static EntryStores Native(long keptForReuse, long slabSlack) => new(new NativeEntryMemory(), keptForReuse, slabSlack);

    /// <summary>Stores in arrays on the GC's pinned heap (<see cref="ManagedEntryMemory"/>).</summary>
    public static EntryStores Managed(long keptForReuse, long slabSlack) => new(new ManagedEntryMemory(), keptForReuse, slabSlack);

    /// <summary>Stores of the kind <paramref name="kind"/> names.</summary>
    public static EntryStores For(EntryStoreKind kind, long keptForReuse, long slabSlack) =>
        kind == EntryStoreKind.Managed ? Managed(keptForReuse, slabSlack) : Native(keptForReuse, slabSlack);

    public EntryStore Create() => new(_blocks);

    /// <summary>Frees the blocks kept for reuse; the stores keep working and keep blocks again as entries leave.</summary>
    public void ReleaseKeptBlocks() => _blocks.ReleaseKept();
}
