using Cubby.Grains.Capacity;

namespace Cubby.Tests.Grains;

/// <summary>A reclaimer for a shard alone with its budget: nothing else to evict, so a write that does not fit is refused.</summary>
internal sealed class NothingToEvict : IMemoryReclaimer
{
    public static readonly NothingToEvict Instance = new();

    public bool MakeRoom(long bytes) => false;

    public bool EmptySparsePages() => false;
}
