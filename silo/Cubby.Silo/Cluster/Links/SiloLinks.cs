using System.Collections.Concurrent;
using Cubby.Client;
using Cubby.Client.Connections;
using Cubby.Resp;
using Cubby.Silo.Hosting;
using Microsoft.Extensions.Options;

namespace Cubby.Silo.Cluster.Links;

/// <summary>
/// This silo's connections to its peers, authenticated with the cluster secret: a few multiplexed connections per peer
/// for forwarded calls, and one more for control traffic (probes, handoffs, membership). Keeping control apart matters:
/// a forwarded call may wait on its connection for a slot that is arriving, and the handoff that brings the slot must
/// not queue behind it; nor may a probe queue behind slow calls and count as a miss.
/// </summary>
internal sealed class SiloLinks : IDisposable
{
    /// <summary>The user a silo authenticates as on another silo; its password is <c>Cubby:Clustering:Secret</c>.</summary>
    public const string UserName = "cubby-silo";

    private readonly CubbyClientOptions _options;
    private readonly int _perPeer;
    private readonly ILoggerFactory _loggers;
    private readonly TimeProvider _time;
    private readonly ConcurrentDictionary<(string Host, int Port, bool Control), Lazy<Peer>> _peers = new();
    private bool _disposed;

    public SiloLinks(IOptions<SiloOptions> options, ILoggerFactory loggers, TimeProvider time)
    {
        var silo = options.Value;
        _perPeer = silo.Clustering.LinkConnections;
        _loggers = loggers;
        _time = time;
        _options = new CubbyClientOptions
        {
            UserName = UserName,
            Password = silo.Clustering.Secret,
            Protocol = RespVersion.Resp2,
            ConnectTimeout = TimeSpan.FromSeconds(2),
            OperationTimeout = silo.Clustering.ForwardTimeout,
            ReconnectMinDelay = TimeSpan.FromMilliseconds(50),
            ReconnectMaxDelay = TimeSpan.FromSeconds(1),
            MaxKeyBytes = silo.MaxKeyBytes,

            // Replies relayed for a peer (MGET of many values, a SCAN page) may be as large as a whole request.
            MaxValueBytes = (int)Math.Min(silo.MaxRequestBytes, Array.MaxLength),
        };
    }

    /// <summary>A connection to the silo at <paramref name="host"/>:<paramref name="port"/>, spreading callers over the pool.</summary>
    public CubbyConnection To(string host, int port) => Get(host, port, control: false);

    /// <summary>The control connection to the silo at <paramref name="host"/>:<paramref name="port"/>: probes, handoffs, membership.</summary>
    public CubbyConnection Control(string host, int port) => Get(host, port, control: true);

    /// <summary>Whether this silo holds a link (forwarding or control) to the silo at <paramref name="host"/>:<paramref name="port"/>.</summary>
    public bool IsLinkedTo(string host, int port) => _peers.ContainsKey((host, port, false)) || _peers.ContainsKey((host, port, true));

    /// <summary>Closes the connections to a silo that left or died, so they stop reconnecting.</summary>
    public void Drop(string host, int port)
    {
        foreach (var control in (ReadOnlySpan<bool>)[false, true])
        {
            if (_peers.TryRemove((host, port, control), out var peer) && peer.IsValueCreated)
            {
                peer.Value.Dispose();
            }
        }
    }

    public void Dispose()
    {
        _disposed = true;
        foreach (var peer in _peers.Values)
        {
            if (peer.IsValueCreated)
            {
                peer.Value.Dispose();
            }
        }

        _peers.Clear();
    }

    private CubbyConnection Get(string host, int port, bool control)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        return _peers.GetOrAdd((host, port, control), static (peer, links) => new Lazy<Peer>(() => links.Open(peer.Host, peer.Port, peer.Control ? 1 : links._perPeer)), this).Value.Next();
    }

    private Peer Open(string host, int port, int count)
    {
        var connections = new CubbyConnection[count];
        for (var i = 0; i < connections.Length; i++)
        {
            connections[i] = new CubbyConnection(host, port, _options, _loggers.CreateLogger<CubbyConnection>(), _time);
        }

        return new Peer(connections);
    }

    private sealed class Peer(CubbyConnection[] connections) : IDisposable
    {
        private int _next;

        public CubbyConnection Next() =>
            connections.Length == 1 ? connections[0] : connections[(int)((uint)Interlocked.Increment(ref _next) % (uint)connections.Length)];

        public void Dispose()
        {
            foreach (var connection in connections)
            {
                connection.Dispose();
            }
        }
    }
}
