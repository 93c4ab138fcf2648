using Cubby.Grains.Persistence;
using Cubby.Grains.Replication;

namespace Cubby.Grains.Reports;

/// <summary>
/// What this silo's shards hold and have done, read when asked: the figures of <c>INFO</c>, <c>/metrics</c>, the
/// OpenTelemetry meter and the dashboards. <c>AddCubby</c> registers it.
/// </summary>
public sealed class ShardFigures
{
    private readonly ShardCatalog _catalog;
    private readonly ShardFiles? _files;
    private readonly ShardReplicas? _replicas;

    internal ShardFigures(ShardCatalog catalog, ShardFiles? files = null, ShardReplicas? replicas = null) =>
        (_catalog, _files, _replicas) = (catalog, files, replicas);

    /// <summary>Entries held by the shards active here.</summary>
    public long Entries => _catalog.Count();

    /// <summary>Shards active here.</summary>
    public int ActiveShards => _catalog.ActiveShards();

    /// <summary>Shards this silo keeps a copy of for their primaries elsewhere: replicas, and shards that just left.</summary>
    public int ReplicasHere => _replicas?.Count ?? 0;

    /// <summary>Bytes of entries charged to the memory budget.</summary>
    public long MemoryUsed => _catalog.Budget.Used;

    /// <summary>The memory budget (<c>Cubby:MaxMemoryBytes</c>).</summary>
    public long MemoryLimit => _catalog.Budget.Limit;

    /// <summary>The budget less what the store keeps for reuse: where eviction starts.</summary>
    public long MemoryCeiling => _catalog.Budget.Ceiling;

    /// <summary>The native store's slab pages: resident, free within them, the slack eviction keeps down, pages emptied.</summary>
    public (long Resident, long Free, long Slack, long PagesEmptied) SlabBytes
    {
        get
        {
            var slabs = _catalog.Slabs;
            return (slabs.ResidentBytes, slabs.FreeBytes, slabs.SlackBytes, slabs.PagesEmptied);
        }
    }

    /// <summary>Shards sent to other silos and received from them since start.</summary>
    public (long Sent, long Received) ShardsMigrated => (_catalog.ShardsMigratedOut, _catalog.ShardsMigratedIn);

    /// <summary>Keys tracked for readers (CLIENT TRACKING, near caches) by the shards here.</summary>
    public long TrackedKeys => _catalog.Tracking?.Keys ?? 0;

    /// <summary>This silo's shards on disk, or null when <c>Cubby:Persistence:Directory</c> is not set.</summary>
    public PersistenceFigures? Persistence => _files is { Enabled: true } files ? PersistenceFigures.Of(files) : null;

    /// <summary>Entries removed since start because they expired, and to stay within the memory budget.</summary>
    /// <returns>The two counts.</returns>
    public (long Expired, long Evicted) Removed() => _catalog.RemovalTotals();

    /// <summary>Entries here that have an expiry.</summary>
    /// <returns>Their count, shard by shard (each counted under its own turn).</returns>
    public long EntriesWithExpiry()
    {
        long count = 0;
        for (var slot = 0; slot < _catalog.SlotCount; slot++)
        {
            count += _catalog.Find(slot)?.CountWithExpiry() ?? 0;
        }

        return count;
    }

    /// <summary>Frees the blocks the store keeps for reuse (<c>MEMORY PURGE</c>'s first step, before a compacting collection).</summary>
    public void ReleaseKeptBlocks() => _catalog.ReleaseKeptBlocks();

    /// <summary>Gives the native heap's free pages back to the system (<c>MEMORY PURGE</c>'s last step).</summary>
    /// <returns>Whether the heap could be trimmed.</returns>
    public static bool TrimNativeHeap() => ShardCatalog.TrimNativeHeap();

    /// <summary>The native heap's bytes in use and retained (glibc's malloc), where it says.</summary>
    /// <param name="allocated">Bytes in allocated blocks.</param>
    /// <param name="retained">Bytes the heap holds but does not use.</param>
    /// <returns>Whether the heap could be read.</returns>
    public static bool TryReadNativeHeap(out long allocated, out long retained) => ShardCatalog.TryReadNativeHeap(out allocated, out retained);
}
