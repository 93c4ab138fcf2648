namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// This silo's membership in its cluster: joins the table, keeps its heartbeat, watches peers (probes, votes,
/// stale heartbeats), and tells the silo when the table changes. One implementation serves every mode; the modes
/// differ only in the <see cref="IMembershipTable"/> behind it.
/// </summary>
internal interface IClusterMembership
{
    /// <summary>This silo's row as last written; null before <see cref="JoinAsync"/>.</summary>
    MembershipEntry? Self { get; }

    /// <summary>The latest table read; null before <see cref="JoinAsync"/>.</summary>
    MembershipSnapshot? Current { get; }

    /// <summary>True once the cluster has declared this silo dead while it was not leaving: it must stop serving.</summary>
    bool IsFenced { get; }

    /// <summary>Raised, one call at a time and in version order, after a read finds a newer table version.</summary>
    event Action<MembershipSnapshot>? Changed;

    /// <summary>Raised once when this silo learns it was declared dead while it was not leaving.</summary>
    event Action? Fenced;

    /// <summary>
    /// Registers this silo (Joining, a new generation), refuses a cluster whose active silos have another slot count,
    /// then becomes Active and starts heartbeats, table reads and probes.
    /// </summary>
    /// <exception cref="InvalidOperationException">The cluster's slot count differs (the message names both).</exception>
    Task JoinAsync(string host, int port, CancellationToken cancellationToken);

    /// <summary>Marks this silo ShuttingDown: it leaves the view, and its slots move to the others.</summary>
    Task LeaveAsync(CancellationToken cancellationToken);

    /// <summary>Marks this silo Dead (its slots handed off) and stops heartbeats, reads and probes.</summary>
    Task CompleteLeaveAsync(CancellationToken cancellationToken);

    /// <summary>Reads the table now rather than at the next refresh (a peer said it changed).</summary>
    void RefreshSoon();
}
