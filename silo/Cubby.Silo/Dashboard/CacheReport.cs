namespace Cubby.Silo.Dashboard;

/// <summary>What <c>GET /dashboard/cache/api/silos</c> returns: the cache figures of every silo in the cluster.</summary>
/// <param name="ClusterId">The cluster's id.</param>
/// <param name="SelfId">The Orleans address of the silo that answered.</param>
/// <param name="SlotCount">The cluster's slot count.</param>
/// <param name="Time">When the report was made.</param>
/// <param name="Silos">The silos Orleans' membership counts as active or leaving, then those declared dead of late.</param>
internal sealed record CacheReport(
    string ClusterId,
    string SelfId,
    int SlotCount,
    DateTimeOffset Time,
    IReadOnlyList<CacheSilo> Silos);

/// <summary>One silo as the cache page shows it.</summary>
/// <param name="Id">Its Orleans silo address.</param>
/// <param name="Endpoint">Its RESP endpoint (its Orleans endpoint when it did not answer; empty once dead).</param>
/// <param name="Status">Orleans' status: Active, ShuttingDown, Stopping or Dead.</param>
/// <param name="Shards">Shards active on it.</param>
/// <param name="IsSelf">Whether it is the silo that answered.</param>
/// <param name="Reachable">Whether it answered in time.</param>
/// <param name="Stats">Its figures and series; null when it did not answer.</param>
internal sealed record CacheSilo(
    string Id,
    string Endpoint,
    string Status,
    int Shards,
    bool IsSelf,
    bool Reachable,
    SiloStats? Stats)
{
    /// <summary>When the answering silo saw Orleans declare it dead; null while it is a member.</summary>
    public DateTimeOffset? DeclaredDeadAt { get; init; }
}
