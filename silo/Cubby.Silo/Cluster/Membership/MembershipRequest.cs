namespace Cubby.Silo.Cluster.Membership;

/// <summary>The arguments of one forwarded table operation; each operation uses the fields it needs.</summary>
/// <param name="ClusterId">The cluster whose table the operation is for.</param>
/// <param name="Entry">The row to insert or update.</param>
/// <param name="ExpectedVersion">The table version the writer read.</param>
/// <param name="ETag">The row version the updater read.</param>
/// <param name="SiloId">The silo whose heartbeat this is.</param>
/// <param name="At">The heartbeat's time; for a clean-up, the time before which dead silos' rows go.</param>
internal sealed record MembershipRequest(
    string ClusterId,
    MembershipEntry? Entry = null,
    long ExpectedVersion = 0,
    string? ETag = null,
    string? SiloId = null,
    DateTimeOffset At = default);
