namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// One silo's row in the membership table. Tables keep times in UTC to the microsecond (what PostgreSQL stores), so
/// an entry read back equals the one written once its times are truncated that way.
/// </summary>
/// <param name="SiloId">Unique within the cluster; a restarted silo has a new id (see <paramref name="Generation"/>).</param>
/// <param name="Host">The host other silos and clients connect to.</param>
/// <param name="Port">The RESP port on <paramref name="Host"/>.</param>
/// <param name="Generation">Tells incarnations of one endpoint apart (the start time in milliseconds, as Orleans does).</param>
/// <param name="Status">Where the silo is in its life.</param>
/// <param name="SlotCount">The cluster's slot count as this silo sees it; silos refuse to join a cluster whose count differs.</param>
/// <param name="StartedAt">When the silo process started.</param>
/// <param name="IAmAliveAt">The silo's last heartbeat.</param>
/// <param name="Suspicions">Votes by peers that this silo is dead, oldest first.</param>
internal sealed record MembershipEntry(
    string SiloId,
    string Host,
    int Port,
    long Generation,
    SiloStatus Status,
    int SlotCount,
    DateTimeOffset StartedAt,
    DateTimeOffset IAmAliveAt,
    IReadOnlyList<Suspicion> Suspicions)
{
    /// <summary>Value equality, suspicions compared item by item (a record alone would compare the list by reference).</summary>
    public bool Equals(MembershipEntry? other) =>
        other is not null
        && SiloId == other.SiloId
        && Host == other.Host
        && Port == other.Port
        && Generation == other.Generation
        && Status == other.Status
        && SlotCount == other.SlotCount
        && StartedAt == other.StartedAt
        && IAmAliveAt == other.IAmAliveAt
        && Suspicions.SequenceEqual(other.Suspicions);

    /// <inheritdoc />
    public override int GetHashCode() => HashCode.Combine(SiloId, Host, Port, Generation, Status, Suspicions.Count);
}
