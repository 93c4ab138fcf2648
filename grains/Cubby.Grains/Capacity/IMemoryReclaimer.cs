namespace Cubby.Grains.Capacity;

/// <summary>Frees memory in a <see cref="MemoryBudget"/> when a write does not fit.</summary>
internal interface IMemoryReclaimer
{
    /// <summary>
    /// Frees memory until <paramref name="bytes"/> are available, or as close as it can. A caller may hold one or more
    /// shards' turns; those shards may be evicted from too, so the caller must look its entry up again afterwards.
    /// </summary>
    /// <returns>False when the bytes cannot fit: more than the whole budget, or nothing left to evict.</returns>
    bool MakeRoom(long bytes);

    /// <summary>
    /// When the stores' free slab slots exceed their slack, moves the entries of the sparsest pages to free slots of
    /// other pages of their class, so those pages go back to the system; nothing live is lost (an expired entry is removed
    /// on the way). The same caveat as <see cref="MakeRoom"/> holds for the caller's own shards.
    /// </summary>
    /// <returns>True when any entry moved or was removed.</returns>
    bool EmptySparsePages();
}
