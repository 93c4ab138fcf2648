namespace Cubby.Silo.Cluster.Membership;

/// <summary>Tells peers that the membership table changed, so they read it now rather than at their next refresh.</summary>
internal interface IMembershipNotifier
{
    /// <summary>Sends the news to each of <paramref name="peers"/> without waiting for answers; never throws.</summary>
    void NotifyChanged(IEnumerable<MembershipEntry> peers);
}
