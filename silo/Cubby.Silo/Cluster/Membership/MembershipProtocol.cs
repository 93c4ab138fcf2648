namespace Cubby.Silo.Cluster.Membership;

/// <summary>The internal commands silos send each other about membership; refused to anyone but a cluster peer.</summary>
internal static class MembershipProtocol
{
    /// <summary><c>CUBBY.PROBE silo-id</c>: <c>+OK</c> only from that silo, while it serves.</summary>
    public const string Probe = "CUBBY.PROBE";

    /// <summary><c>CUBBY.MEMBERSHIP.CHANGED</c>: the table changed; read it soon.</summary>
    public const string Changed = "CUBBY.MEMBERSHIP.CHANGED";

    /// <summary><c>CUBBY.MEMBERSHIP op json</c>: a table operation run by the Development primary.</summary>
    public const string Table = "CUBBY.MEMBERSHIP";

    /// <summary>The error code of a table error (the message follows it); the caller rethrows it as <see cref="InvalidOperationException"/>.</summary>
    public const string TableErrorCode = "MEMBERSHIP";

    /// <summary>The operations of <see cref="Table"/>, one per <see cref="IMembershipTable"/> method.</summary>
    public static class Operations
    {
        public const string Initialize = "INIT";
        public const string ReadAll = "READ";
        public const string Insert = "INSERT";
        public const string Update = "UPDATE";
        public const string IAmAlive = "ALIVE";
        public const string DeleteDefunct = "PRUNE";
        public const string DeleteCluster = "DELETE";
    }
}
