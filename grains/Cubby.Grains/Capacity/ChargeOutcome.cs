namespace Cubby.Grains.Capacity;

/// <summary>How charging a write's growth to the memory budget went.</summary>
internal enum ChargeOutcome
{
    /// <summary>The bytes are charged; the write goes ahead.</summary>
    Charged,

    /// <summary>
    /// Nothing charged, but entries were evicted to make room, or moved out of a sparse slab page: look the entry up
    /// again and charge anew.
    /// </summary>
    Reclaimed,

    /// <summary>The bytes cannot fit: over the whole budget, or nothing left to evict.</summary>
    OutOfMemory,
}
