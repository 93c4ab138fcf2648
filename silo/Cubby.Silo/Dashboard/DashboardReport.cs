namespace Cubby.Silo.Dashboard;

/// <summary>What <c>GET /dashboard/api/cluster</c> returns: every member, live ones with their numbers, and recent changes.</summary>
/// <param name="ClusterId">The cluster's id.</param>
/// <param name="Mode">The clustering mode.</param>
/// <param name="SelfId">The Orleans address of the silo that answered.</param>
/// <param name="ViewVersion">The membership table's version.</param>
/// <param name="SlotCount">The cluster's slot count.</param>
/// <param name="Time">When the report was made.</param>
/// <param name="Silos">Every row of Orleans' membership table, dead silos included.</param>
/// <param name="Events">Membership changes the answering silo saw, newest first.</param>
internal sealed record DashboardReport(
    string ClusterId,
    string Mode,
    string? SelfId,
    long ViewVersion,
    int SlotCount,
    DateTimeOffset Time,
    IReadOnlyList<DashboardSilo> Silos,
    IReadOnlyList<MembershipEvent> Events);

/// <summary>One member as the dashboard shows it.</summary>
/// <param name="Id">Its Orleans silo address.</param>
/// <param name="Endpoint">Its RESP endpoint (its Orleans endpoint when it did not answer).</param>
/// <param name="Status">Orleans' status: Joining, Active, ShuttingDown, Stopping or Dead.</param>
/// <param name="Generation">Its generation.</param>
/// <param name="Slots">Shards active on it.</param>
/// <param name="IsSelf">Whether it is the silo that answered.</param>
/// <param name="Reachable">Whether it answered in time; false for dead silos.</param>
/// <param name="LastHeartbeat">Its last heartbeat in the table.</param>
/// <param name="Stats">Its numbers and series; null when it did not answer.</param>
internal sealed record DashboardSilo(
    string Id,
    string Endpoint,
    string Status,
    long Generation,
    int Slots,
    bool IsSelf,
    bool Reachable,
    DateTimeOffset LastHeartbeat,
    SiloStats? Stats);
