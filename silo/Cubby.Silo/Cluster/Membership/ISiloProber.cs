namespace Cubby.Silo.Cluster.Membership;

/// <summary>Asks a peer directly whether it is alive, over the silo link.</summary>
internal interface ISiloProber
{
    /// <summary>
    /// True when <paramref name="target"/> answered that it is that very silo (same id, so the same incarnation) and
    /// still serving; false or an exception otherwise. The caller cancels <paramref name="cancellationToken"/> when
    /// the probe timeout passes.
    /// </summary>
    Task<bool> ProbeAsync(MembershipEntry target, CancellationToken cancellationToken);
}
