namespace Cubby.Silo.Cluster;

/// <summary>How silos find each other and watch each other: the <c>Cubby:Clustering</c> configuration section.</summary>
public sealed class ClusteringOptions
{
    /// <summary>Where the membership table lives.</summary>
    public ClusteringMode Mode { get; set; } = ClusteringMode.Localhost;

    /// <summary>
    /// <see cref="ClusteringMode.Development"/>: the RESP endpoint (<c>host:port</c>) of the silo that keeps the table.
    /// Unset on the primary itself.
    /// </summary>
    public string? PrimaryEndpoint { get; set; }

    /// <summary><see cref="ClusteringMode.Postgres"/>: the Npgsql connection string of the membership database.</summary>
    public string? ConnectionString { get; set; }

    /// <summary>
    /// The secret silos authenticate to each other with; required unless <see cref="Mode"/> is
    /// <see cref="ClusteringMode.Localhost"/>. Clients never need it.
    /// </summary>
    public string? Secret { get; set; }

    /// <summary>How often a silo writes its heartbeat to the table.</summary>
    public TimeSpan HeartbeatInterval { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>How often a silo reads the table for changes (peers are also told of changes directly).</summary>
    public TimeSpan TableRefreshInterval { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>How often a silo probes each of its peers over the silo link.</summary>
    public TimeSpan ProbeInterval { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>How long a probe may take; a silo slower than this counts as a missed probe, never faster.</summary>
    public TimeSpan ProbeTimeout { get; set; } = TimeSpan.FromSeconds(2);

    /// <summary>Consecutive missed probes after which a silo votes that the peer is dead.</summary>
    public int MissedProbesLimit { get; set; } = 3;

    /// <summary>Votes from distinct silos that declare a silo dead (fewer when fewer peers are left to vote).</summary>
    public int VotesForDeath { get; set; } = 2;

    /// <summary>How recent votes must be to count.</summary>
    public TimeSpan VoteExpiration { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>A silo whose last heartbeat is older than this is declared dead by any peer that notices.</summary>
    public TimeSpan HeartbeatExpiration { get; set; } = TimeSpan.FromSeconds(8);

    /// <summary>How long the row of a dead silo stays in the table (for operators to see) before it is deleted.</summary>
    public TimeSpan DefunctSiloExpiration { get; set; } = TimeSpan.FromDays(1);

    /// <summary>How often each silo deletes the rows of silos dead for longer than <see cref="DefunctSiloExpiration"/>.</summary>
    public TimeSpan DefunctSiloCleanupPeriod { get; set; } = TimeSpan.FromHours(1);

    /// <summary>Connections each silo keeps to each peer; calls forwarded to that peer share them.</summary>
    public int LinkConnections { get; set; } = 2;

    /// <summary>How long a forwarded call may take, including a wait for a slot that is being handed off.</summary>
    public TimeSpan ForwardTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>The most entry bytes one handoff chunk carries.</summary>
    public int HandoffChunkBytes { get; set; } = 1024 * 1024;

    /// <summary>How long a call for a slot that is being handed off waits before it fails.</summary>
    public TimeSpan HandoffWaitTimeout { get; set; } = TimeSpan.FromSeconds(10);
}

/// <summary>Where the membership table lives.</summary>
public enum ClusteringMode
{
    /// <summary>No table to share: a cluster of one silo.</summary>
    Localhost,

    /// <summary>A primary silo keeps the table in memory and the others join it; for development only.</summary>
    Development,

    /// <summary>The table is in PostgreSQL (<see cref="ClusteringOptions.ConnectionString"/>).</summary>
    Postgres,
}
