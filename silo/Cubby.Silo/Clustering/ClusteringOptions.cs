namespace Cubby.Silo.Clustering;

/// <summary>How silos find and watch each other: the <c>Cubby:Clustering</c> section, mapped onto Orleans' options.</summary>
public sealed class ClusteringOptions
{
    /// <summary>Where Orleans keeps the membership table.</summary>
    public ClusteringMode Mode { get; set; } = ClusteringMode.Localhost;

    /// <summary>
    /// <see cref="ClusteringMode.Development"/>: the Orleans silo endpoint (<c>host:port</c>, the primary's
    /// <c>Cubby:Clustering:SiloPort</c>) of the silo that keeps the table in memory. Unset on the primary itself.
    /// </summary>
    public string? PrimaryEndpoint { get; set; }

    /// <summary><see cref="ClusteringMode.Postgres"/>: the Npgsql connection string of the membership and reminders database.</summary>
    public string? ConnectionString { get; set; }

    /// <summary>
    /// Orleans' service id: stable across deployments of the same cache (reminders are kept under it), while
    /// <c>Cubby:ClusterId</c> may change from one deployment to the next.
    /// </summary>
    public string ServiceId { get; set; } = CubbyDefaults.ServiceId;

    /// <summary>The port silos talk to each other on (Orleans' silo port); 0 picks a free one.</summary>
    public int SiloPort { get; set; } = 11111;

    /// <summary>The port Orleans clients connect to (Orleans' gateway port); 0 picks a free one.</summary>
    public int GatewayPort { get; set; } = CubbyDefaults.GatewayPort;

    /// <summary>How long a silo waits for a probe's answer before counting it missed.</summary>
    public TimeSpan ProbeTimeout { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>Consecutive missed probes after which a silo suspects a peer.</summary>
    public int MissedProbesLimit { get; set; } = 2;

    /// <summary>Suspicions from distinct silos that declare a silo dead (fewer when fewer silos are left to vote).</summary>
    public int VotesForDeath { get; set; } = 2;

    /// <summary>
    /// How often a silo rereads the membership table. Changes are gossiped at once, so this only catches a silo up on
    /// gossip it missed; every reread wakes each of Orleans' membership watchers, which kept an idle silo's startup
    /// compiling for longer (docs/orleans-cluster.md).
    /// </summary>
    public TimeSpan TableRefreshInterval { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// How long a command may wait for its shard: a shard that is moving, or whose silo has just died and is not yet
    /// declared dead, answers within this time or the command fails with an error naming this setting.
    /// </summary>
    public TimeSpan CallTimeout { get; set; } = TimeSpan.FromSeconds(15);

    /// <summary>TLS for the silo and gateway ports (<c>Cubby:Clustering:Tls</c>); off unless it names a certificate.</summary>
    public ClusterTlsOptions Tls { get; set; } = new();
}

/// <summary>Where Orleans keeps the membership table.</summary>
public enum ClusteringMode
{
    /// <summary>No table to share: a cluster of this one silo (Orleans' localhost clustering).</summary>
    Localhost,

    /// <summary>A primary silo keeps the table in memory and the others join it (Orleans' development clustering).</summary>
    Development,

    /// <summary>The table and the reminders are in PostgreSQL (Orleans' ADO.NET providers, invariant <c>Npgsql</c>).</summary>
    Postgres,
}
