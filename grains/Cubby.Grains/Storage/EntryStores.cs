namespace Cubby.Grains.Storage;

/// <summary>
/// The entry stores of a silo's shards: how to make one, and the freed blocks they share for reuse, which
/// <see cref="ReleaseKeptBlocks"/> gives up (MEMORY PURGE).
/// </summary>
internal sealed class EntryStores(Func<IEntryStore> create, Action? releaseKeptBlocks = null, SlabPages? slabs = null)
{
    /// <summary>Stores on managed arrays, keeping up to <paramref name="keptForReuse"/> bytes of freed arrays.</summary>
    public static EntryStores Managed(long keptForReuse)
    {
        var blocks = new ManagedBlocks(keptForReuse);
        return new(() => new ManagedEntryStore(blocks), blocks.ReleaseKept);
    }

    /// <summary>
    /// Stores in native memory, keeping up to <paramref name="keptForReuse"/> bytes of freed large blocks and letting
    /// free slab slots reach <paramref name="slabSlack"/> bytes before sparse pages are emptied.
    /// </summary>
    public static EntryStores Native(long keptForReuse, long slabSlack)
    {
        var blocks = new NativeBlocks(keptForReuse, slabSlack);
        return new(() => new NativeEntryStore(blocks), blocks.ReleaseKept, blocks.Slabs);
    }

    /// <summary>The slab pages the stores carve their blocks from, or null when they have none.</summary>
    public SlabPages? Slabs => slabs;

    public IEntryStore Create() => create();

    /// <summary>Frees the blocks kept for reuse; the stores keep working and keep blocks again as entries leave.</summary>
    public void ReleaseKeptBlocks() => releaseKeptBlocks?.Invoke();
}
