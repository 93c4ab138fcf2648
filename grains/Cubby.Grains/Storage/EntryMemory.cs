namespace Cubby.Grains.Storage;

/// <summary>
/// Where a silo's entry blocks live (<see cref="EntryBlocks"/>): the memory behind each slab page, and blocks too large
/// for a slab. <see cref="NativeEntryMemory"/> keeps them outside the GC heap; <see cref="ManagedEntryMemory"/> keeps
/// them in arrays on the GC's pinned heap. Thread-safe: the stores of a silo share one.
/// </summary>
internal abstract unsafe class EntryMemory
{
    /// <summary>The bytes a block of its own costs beyond its size: the allocator's header and alignment.</summary>
    public abstract int BlockOverhead { get; }

    /// <summary>Gives <paramref name="page"/> its <see cref="SlabPages.PageBytes"/> of memory, unless it still has it.</summary>
    public abstract void Commit(SlabPages.SlabPage page);

    /// <summary>Gives the memory of <paramref name="page"/>, whose slots are all free, back to the system, keeping its address.</summary>
    public abstract void Decommit(SlabPages.SlabPage page);

    /// <summary>A block of its own of <paramref name="bytes"/>, its header's <see cref="EntryHeader.PageId"/> set to a negative value <see cref="Free"/> reads.</summary>
    public abstract EntryHeader* Allocate(long bytes);

    /// <summary>Frees a block <see cref="Allocate"/> gave.</summary>
    public abstract void Free(EntryHeader* header);
}
