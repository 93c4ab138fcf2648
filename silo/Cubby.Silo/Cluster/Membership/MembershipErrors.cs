namespace Cubby.Silo.Cluster.Membership;

/// <summary>The errors every membership table throws, worded the same whatever stores the table.</summary>
internal static class MembershipErrors
{
    /// <summary>Reading a cluster whose version row does not exist.</summary>
    public static InvalidOperationException NotInitialized(string clusterId, Exception? cause = null) =>
        new($"The membership table of cluster '{clusterId}' is not initialized; call InitializeAsync first.", cause);

    /// <summary>A heartbeat of a silo the table does not hold.</summary>
    public static InvalidOperationException UnknownSilo(string clusterId, string siloId) =>
        new($"The membership table of cluster '{clusterId}' has no silo '{siloId}'.");
}
