using Cubby.Silo.Clustering;
using Cubby.Silo.Dashboard;

namespace Cubby.Silo.Hosting;

/// <summary>
/// A silo's settings, bound from the <c>Cubby</c> configuration section (environment: <c>Cubby__RespPort</c>, ...)
/// and validated when the silo starts.
/// </summary>
public sealed class SiloOptions
{
    /// <summary>The configuration section these options bind from.</summary>
    public const string SectionName = "Cubby";

    /// <summary>The address to listen on: <c>localhost</c> (loopback, IPv4 and IPv6), <c>*</c> (every interface) or an IP address.</summary>
    public string Host { get; set; } = "localhost";

    /// <summary>
    /// The address other silos and clients reach this silo at (Orleans' advertised address; CUBBY.OWNER's host); by
    /// default the listening address, 127.0.0.1 for <c>localhost</c>, or the machine's first IPv4 address for <c>*</c>.
    /// </summary>
    public string? AdvertisedHost { get; set; }

    /// <summary>The RESP (Redis protocol) port; 0 picks a free port.</summary>
    public int RespPort { get; set; } = CubbyProtocol.DefaultRespPort;

    /// <summary>The HTTP port for <c>/health</c>; 0 picks a free port.</summary>
    public int HttpPort { get; set; } = CubbyProtocol.DefaultHttpPort;

    /// <summary>The number of slots keys hash to; the same on every silo and client of a cluster.</summary>
    public int SlotCount { get; set; } = Sharding.ShardMap.DefaultSlotCount;

    /// <summary>The longest key accepted, in bytes.</summary>
    public int MaxKeyBytes { get; set; } = CubbyDefaults.MaxKeyBytes;

    /// <summary>The largest value (and any other single argument) accepted, in bytes.</summary>
    public int MaxValueBytes { get; set; } = CubbyDefaults.MaxValueBytes;

    /// <summary>The most arguments one command may have.</summary>
    public int MaxArguments { get; set; } = 1024 * 1024;

    /// <summary>The most bytes one command may take on the wire, all its arguments together.</summary>
    public long MaxRequestBytes { get; set; } = 64L * 1024 * 1024;

    /// <summary>The memory budget for entries, in bytes; 0 means half of the memory available to the process.</summary>
    public long MaxMemoryBytes { get; set; }

    /// <summary>Where entry blocks live: <see cref="EntryStoreKind.Native"/> (outside the GC heap) or <see cref="EntryStoreKind.Managed"/> (the GC's pinned heap).</summary>
    public EntryStoreKind Store { get; set; } = EntryStoreKind.Native;

    /// <summary>
    /// How often a silo with the native store gives the C heap's free pages back to the system (<c>malloc_trim</c>), so
    /// RSS follows the budget under churn of many value sizes; 0 turns it off.
    /// </summary>
    public TimeSpan NativeHeapTrimInterval { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>Entries sampled per eviction when the budget is full (approximate LRU).</summary>
    public int EvictionSamples { get; set; } = 5;

    /// <summary>How often the active expiry cycle samples grains for expired entries.</summary>
    public TimeSpan ActiveExpiryInterval { get; set; } = TimeSpan.FromMilliseconds(100);

    /// <summary>The most time one active expiry cycle may take.</summary>
    public TimeSpan ActiveExpiryBudget { get; set; } = TimeSpan.FromMilliseconds(25);

    /// <summary>How often every entry of every grain is checked for expiry.</summary>
    public TimeSpan FullSweepInterval { get; set; } = TimeSpan.FromMinutes(5);

    /// <summary>When set, clients must <c>AUTH</c> with this password before any other command.</summary>
    public string? Password { get; set; }

    /// <summary>TLS for RESP connections (<c>Cubby:Tls</c>).</summary>
    public TlsOptions Tls { get; set; } = new();

    /// <summary>Run command processing on the socket's I/O thread; measured as the largest gain without pipelining.</summary>
    public bool InlineScheduling { get; set; } = true;

    /// <summary>
    /// The cluster this silo belongs to (Orleans' cluster id); several clusters may share one membership database.
    /// </summary>
    public string ClusterId { get; set; } = CubbyDefaults.ClusterId;

    /// <summary>Orleans' clustering, endpoints and failure detection (<c>Cubby:Clustering</c>).</summary>
    public ClusteringOptions Clustering { get; set; } = new();

    /// <summary>The dashboard and <c>/metrics</c> on the HTTP port (<c>Cubby:Dashboard</c>).</summary>
    public DashboardOptions Dashboard { get; set; } = new();

    /// <summary>How long a graceful shutdown may take, moving every shard to the silos left included.</summary>
    public TimeSpan ShutdownTimeout { get; set; } = TimeSpan.FromSeconds(30);

    internal long EffectiveMaxMemoryBytes =>
        MaxMemoryBytes > 0 ? MaxMemoryBytes : Math.Max(64L * 1024 * 1024, GC.GetGCMemoryInfo().TotalAvailableMemoryBytes / 2);

    /// <summary>
    /// Listens on loopback only, every port (RESP, HTTP, Orleans silo and gateway) one the system picks: for silos a
    /// test or benchmark process starts by the dozen, which must never collide with each other or with a running one.
    /// </summary>
    public void UseEphemeralLoopbackPorts()
    {
        Host = "127.0.0.1";
        RespPort = 0;
        HttpPort = 0;
        if (Tls.Port is not null)
        {
            Tls.Port = 0;
        }

        Clustering.SiloPort = 0;
        Clustering.GatewayPort = 0;
    }
}

/// <summary>Where the entry blocks of a silo's grains live. Both lay entries out alike, in the same slab pages and table, and give an emptied page's memory back to the system.</summary>
public enum EntryStoreKind
{
    /// <summary>Native memory: nothing for the GC to track, however much is cached.</summary>
    Native,

    /// <summary>
    /// Arrays on the GC's pinned heap, one per 64 KiB slab page and one per block over 8 KiB: the GC owns and counts
    /// the cache (a heap hard limit covers it) but never moves it.
    /// </summary>
    Managed,
}
