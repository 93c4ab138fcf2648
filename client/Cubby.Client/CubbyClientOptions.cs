using System.Text.Json;

namespace Cubby.Client;

/// <summary>How the client finds the cluster and what it accepts; bound from the <c>Cubby:Client</c> configuration section and validated at start.</summary>
/// <remarks>
/// In a process that already runs Orleans (a silo, or an app with its own Orleans client), the client calls the shard
/// grains through that runtime and the gateway settings here (<see cref="Endpoints"/>, <see cref="Clustering"/>,
/// <see cref="ClusterId"/>, <see cref="ServiceId"/>, <see cref="ConnectTimeout"/>) are not used.
/// </remarks>
public sealed class CubbyClientOptions
{
    /// <summary>The configuration section these options bind from.</summary>
    public const string SectionName = "Cubby:Client";

    /// <summary>
    /// The connection string read besides the section (<c>ConnectionStrings:cubby</c>), as orchestrators hand one to an
    /// app, in either of the forms <see cref="CubbyConnectionString"/> reads:
    /// <c>Endpoints=10.0.0.5:30000,10.0.0.6:30000;ClusterId=cubby-dev;ServiceId=cubby</c> (keys case-insensitive, each
    /// optional), or only the silos' gateway endpoints as <c>host:port</c> separated by commas. Its endpoints are added
    /// to <see cref="Endpoints"/>; its <c>ClusterId</c> and <c>ServiceId</c> win over the <c>Cubby:Client</c> section's
    /// (the connection string describes the cluster the orchestrator started), and the <c>configure</c> delegate given
    /// to <c>AddCubbyClient</c> wins over both. A process that already runs Orleans does not read it.
    /// </summary>
    public const string ConnectionStringName = "cubby";

    /// <summary>
    /// Silos' Orleans gateway endpoints (<c>Cubby:Clustering:GatewayPort</c> on the silo, 30000 by default) as
    /// <c>host:port</c>. The client connects to them and spreads calls over them; host names are resolved again each time
    /// the gateway list is refreshed. Leave empty when <see cref="CubbyClientClusteringOptions.ConnectionString"/> is set.
    /// </summary>
    public IList<string> Endpoints { get; } = new List<string>();

    /// <summary>
    /// Whether the client learns every active silo's gateway from the one it reaches and then uses those instead of
    /// <see cref="Endpoints"/>, following silos joining and leaving: one address (a silo, a DNS name, a load balancer)
    /// is then enough for calls to go to each key's silo directly, with batches and the near cache, and the client keeps
    /// working while that address is down. Turn it off when the silos' own addresses cannot be reached from the app (a
    /// silo behind address translation that advertises an address only its network knows). On by default.
    /// </summary>
    public bool LearnGateways { get; set; } = true;

    /// <summary>
    /// How often the client reads the list of gateways again: asks the cluster with <see cref="LearnGateways"/>, or reads
    /// the membership table with <see cref="CubbyClientClusteringOptions.ConnectionString"/> (Orleans'
    /// <c>GatewayListRefreshPeriod</c>). A joining silo takes calls directly within about twice this. 10 s by default.
    /// </summary>
    public TimeSpan GatewayRefreshInterval { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>Finding the gateways in the cluster's membership table instead of <see cref="Endpoints"/> (<c>Cubby:Client:Clustering</c>).</summary>
    public CubbyClientClusteringOptions Clustering { get; set; } = new();

    /// <summary>TLS to the gateways (<c>Cubby:Client:Tls</c>), needed when the silos set <c>Cubby:Clustering:Tls</c>.</summary>
    public CubbyClientTlsOptions Tls { get; set; } = new();

    /// <summary>The cluster's id: the silos' <c>Cubby:ClusterId</c>.</summary>
    public string ClusterId { get; set; } = CubbyDefaults.ClusterId;

    /// <summary>The cluster's service id: the silos' <c>Cubby:Clustering:ServiceId</c>.</summary>
    public string ServiceId { get; set; } = CubbyDefaults.ServiceId;

    /// <summary>
    /// How long the host's start (or, without a host, a call) waits for the first gateway to answer before it fails with
    /// a <see cref="CubbyConnectionException"/>; connecting goes on, and later calls succeed once a gateway answers.
    /// </summary>
    public TimeSpan ConnectTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// How long a call may take, tries again after a silo left or could not be reached included, before it fails with a
    /// <see cref="TimeoutException"/> or a <see cref="CubbyConnectionException"/>. Each try waits at most half of it, so
    /// a request lost with a stopping silo is sent again within the budget.
    /// </summary>
    public TimeSpan OperationTimeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// How long one try of a call waits for its answer: Orleans' response timeout for the client, and the time to live
    /// of its request: a silo drops a request unrun once that has passed, so the try before a new one has, all but its
    /// time in transit, either run or been dropped.
    /// </summary>
    internal TimeSpan AttemptTimeout => OperationTimeout / 2;

    /// <summary>
    /// Whether a gateway client sends concurrent calls on keys (<see cref="ICubbyClient.GetAsync"/>,
    /// <see cref="ICubbyClient.PutAsync(string, ReadOnlyMemory{byte}, CacheEntryOptions?, CancellationToken)"/>,
    /// <see cref="ICubbyClient.RefreshAsync"/>, <see cref="ICubbyClient.EvictAsync"/>, <see cref="ICubbyClient.ExistsAsync"/>,
    /// <see cref="ICubbyClient.GetTimeToLiveAsync"/>, each key of the batch forms, and
    /// the <c>IDistributedCache</c> forms) for shards of one silo together, in one message straight to that silo's gateway,
    /// where each runs in its shard's turn; a call the silo cannot take so goes to the shard's grain as a single call, as
    /// every call does when this is off.
    /// </summary>
    public bool CoalesceCalls { get; set; } = true;

    /// <summary>
    /// The near cache (<c>Cubby:Client:NearCache</c>): reads kept and served in this process, dropped when the silos say
    /// the key changed. Off by default; needs the gateway client with <see cref="CoalesceCalls"/> on.
    /// </summary>
    public NearCacheOptions NearCache { get; set; } = new();

    /// <summary>
    /// How long the caller granted the right to fill a missing key (one factory run per key across the cluster, in
    /// <see cref="ICubbyClient.GetOrCreateAsync"/> and Cubby's HybridCache) holds it unless it renews it; it renews it
    /// every third of this while its factory runs. A filler that stops or loses its gateway without giving the right
    /// up holds the others' waits for at most this (plus up to a quarter of <see cref="OperationTimeout"/>). 5 s by
    /// default; from 100 ms to 30 s.
    /// </summary>
    public TimeSpan FillLease { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>The cluster's slot count: the silos' <c>Cubby:SlotCount</c>. Silos refuse keys sent to the wrong shard.</summary>
    public int SlotCount { get; set; } = Sharding.ShardMap.DefaultSlotCount;

    /// <summary>The longest key accepted, in UTF-8 bytes; match the silos' <c>Cubby:MaxKeyBytes</c>.</summary>
    public int MaxKeyBytes { get; set; } = CubbyDefaults.MaxKeyBytes;

    /// <summary>The largest value accepted, in bytes; match the silos' <c>Cubby:MaxValueBytes</c>.</summary>
    public int MaxValueBytes { get; set; } = CubbyDefaults.MaxValueBytes;

    /// <summary>Options for the default System.Text.Json serializer (a source-generated context goes in <see cref="JsonSerializerOptions.TypeInfoResolver"/>).</summary>
    public JsonSerializerOptions? JsonSerializerOptions { get; set; }
}

/// <summary>Where a gateway client finds the silos when it does not list them: the cluster's PostgreSQL membership table.</summary>
public sealed class CubbyClientClusteringOptions
{
    /// <summary>
    /// The Npgsql connection string of the membership database the silos use (their <c>Cubby:Clustering:ConnectionString</c>),
    /// or null to use <see cref="CubbyClientOptions.Endpoints"/>. The client reads the live silos' gateways from it and
    /// follows silos joining and leaving.
    /// </summary>
    public string? ConnectionString { get; set; }
}
