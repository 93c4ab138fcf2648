using Cubby.Grains.Hosting;
using Cubby.Silo.Clustering;
using Cubby.Silo.Dashboard;

namespace Cubby.Silo.Hosting;

/// <summary>
/// A Cubby silo's settings, bound from the <c>Cubby</c> configuration section (environment: <c>Cubby__RespPort</c>, ...)
/// and validated when the silo starts: those of the shards it hosts, and those of its host, RESP front door and HTTP.
/// </summary>
public sealed class SiloOptions : ShardOptions
{
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

    /// <summary>The most arguments one command may have.</summary>
    public int MaxArguments { get; set; } = 1024 * 1024;

    /// <summary>The most bytes one command may take on the wire, all its arguments together.</summary>
    public long MaxRequestBytes { get; set; } = 64L * 1024 * 1024;

    /// <summary>
    /// The most bytes of published messages that may wait for one subscriber that does not read them; past it the
    /// subscriber is disconnected, as Redis's <c>client-output-buffer-limit pubsub</c> hard limit does.
    /// </summary>
    public long PubSubBufferLimitBytes { get; set; } = 32L * 1024 * 1024;

    /// <summary>When set, clients must <c>AUTH</c> with this password before any other command.</summary>
    public string? Password { get; set; }

    /// <summary>TLS for RESP connections (<c>Cubby:Tls</c>).</summary>
    public TlsOptions Tls { get; set; } = new();

    /// <summary>
    /// Run commands on the socket engine's threads, where their bytes arrive, and socket completions there too
    /// (<c>DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=1</c>, process-wide, unless that variable is set already):
    /// measured as the largest gain without pipelining.
    /// </summary>
    public bool InlineScheduling { get; set; } = true;

    /// <summary>
    /// With <see cref="InlineScheduling"/>, the socket engine's event threads, on which commands run
    /// (<c>DOTNET_SYSTEM_NET_SOCKETS_THREAD_COUNT</c>, process-wide, unless that variable is set already).
    /// 0, the default, is one fewer than the processor count and at least one, leaving a core for Orleans and the
    /// garbage collector.
    /// </summary>
    public int SocketThreads { get; set; }

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
