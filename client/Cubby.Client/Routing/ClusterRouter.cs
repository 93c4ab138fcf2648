using Cubby.Client.Connections;
using Cubby.Cluster;
using Cubby.Sharding;
using Microsoft.Extensions.Logging;

namespace Cubby.Client.Routing;

/// <summary>
/// Sends each key straight to the silo that owns its slot: reads the cluster view from the seed endpoints, hashes
/// keys with the view's <see cref="ShardMap"/>, and keeps one multiplexed connection per silo of the view. A newer
/// view arrives as a <c>cubby.view</c> push on any connection, or is read again when a connection fails; connections
/// to silos that left the view are closed once their calls have had time to finish.
/// </summary>
internal sealed partial class ClusterRouter : IConnectionObserver, IDisposable
{
    private readonly CubbyClientOptions _options;
    private readonly ILoggerFactory _loggers;
    private readonly ILogger _logger;
    private readonly TimeProvider _time;

    // Guarded by _viewLock, so a connection is never made for a view about to be replaced and then left open.
    private readonly Dictionary<(string Host, int Port), CubbyConnection> _connections = [];
    private readonly Dictionary<CubbyConnection, ITimer> _retiring = [];
    private readonly Lock _viewLock = new();
    private readonly ViewRefresher _refresher;
    private volatile Routes? _routes;
    private volatile bool _disposed;

    public ClusterRouter(CubbyClientOptions options, ILoggerFactory loggers, TimeProvider time)
    {
        _options = options;
        _loggers = loggers;
        _logger = loggers.CreateLogger<ClusterRouter>();
        _time = time;
        _refresher = new ViewRefresher(RefreshOnce, time);
    }

    /// <summary>The view in use, once read.</summary>
    public ClusterView? View => _routes?.View;

    /// <summary>The connections open or connecting (those of the view, and seeds being asked), for tests.</summary>
    internal int OpenConnections
    {
        get
        {
            lock (_viewLock)
            {
                return _connections.Count;
            }
        }
    }

    /// <summary>The owner of <paramref name="key"/> in the view in use, waiting for the first read of the view if need be.</summary>
    public async ValueTask<KeyOwner> OwnerOfAsync(string key, CancellationToken cancellationToken)
    {
        var routes = _routes;
        if (routes is null)
        {
            var cycle = _refresher.Request();
            await cycle.Completed.WaitAsync(cancellationToken).ConfigureAwait(false);
            ObjectDisposedException.ThrowIf(_disposed, this);
            routes = _routes ?? throw cycle.Failure!;
        }

        var slot = routes.ShardMap.SlotOf(key);
        return new KeyOwner(slot, routes.View.OwnerOf(slot), routes.View.Version);
    }

    /// <summary>A push: installed when newer than the view in use. Never blocks: it runs on a reader thread.</summary>
    public void OnView(ClusterView view) => Install(view, onlyIfNewer: true);

    /// <summary>A silo of the view dropped its connection: it may be leaving, so read the view again.</summary>
    public void OnLost(CubbyConnection connection)
    {
        if (_routes is { } routes && Array.IndexOf(routes.Owners, connection) >= 0)
        {
            _refresher.Request();
        }
    }

    public void Dispose()
    {
        CubbyConnection[] open;
        lock (_viewLock)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            open = [.. _connections.Values, .. _retiring.Keys];
            foreach (var timer in _retiring.Values)
            {
                timer.Dispose();
            }

            _connections.Clear();
            _retiring.Clear();
        }

        // Closing the connections first ends any read the refresher is blocked in.
        foreach (var connection in open)
        {
            connection.Dispose();
        }

        _refresher.Dispose();
    }

    /// <summary>
    /// Installs <paramref name="view"/> when it is newer than the one in use or, with <paramref name="onlyIfNewer"/>
    /// false (a view read from a seed because no silo of the view answered), when it names other silos whatever its
    /// version: the cluster was started again, and its versions with it.
    /// </summary>
    private void Install(ClusterView view, bool onlyIfNewer)
    {
        lock (_viewLock)
        {
            var current = _routes;
            if (_disposed || (current is not null && view.Version <= current.View.Version && (onlyIfNewer || current.View.Silos.SequenceEqual(view.Silos))))
            {
                return;
            }

            var owners = new CubbyConnection[view.Silos.Count];
            for (var i = 0; i < owners.Length; i++)
            {
                owners[i] = Connect(view.Silos[i].Host, view.Silos[i].Port);
            }

            var routes = new Routes(view, new ShardMap(view.SlotCount), owners);
            _routes = routes;
            RetireConnectionsOutside(routes);
            Log.ViewInstalled(_logger, view.Version, view.Silos.Count);
        }
    }

    /// <summary>The pooled connection to a silo, made if need be. Call under <see cref="_viewLock"/>.</summary>
    private CubbyConnection Connect(string host, int port)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (!_connections.TryGetValue((host, port), out var connection))
        {
            connection = new CubbyConnection(host, port, _options, _loggers.CreateLogger<CubbyConnection>(), _time, this);
            _connections.Add((host, port), connection);
        }

        return connection;
    }

    /// <summary>
    /// Forgets the connections to silos outside the view (gone silos, seeds that are not in it) and closes them after
    /// the operation timeout, so calls already sent on them get their replies. Call under <see cref="_viewLock"/>.
    /// </summary>
    private void RetireConnectionsOutside(Routes routes)
    {
        List<(string, int)>? gone = null;
        foreach (var (endpoint, connection) in _connections)
        {
            if (Array.IndexOf(routes.Owners, connection) < 0)
            {
                (gone ??= []).Add(endpoint);
            }
        }

        foreach (var endpoint in gone ?? [])
        {
            _connections.Remove(endpoint, out var connection);
            var timer = _time.CreateTimer(static state => ((Retirement)state!).Close(), new Retirement(this, connection!), Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
            _retiring.Add(connection!, timer);
            timer.Change(_options.OperationTimeout, Timeout.InfiniteTimeSpan);
            Log.ConnectionRetired(_logger, endpoint.Item1, endpoint.Item2);
        }
    }

    private sealed record Retirement(ClusterRouter Router, CubbyConnection Connection)
    {
        public void Close()
        {
            lock (Router._viewLock)
            {
                if (!Router._retiring.Remove(Connection, out var timer))
                {
                    return;
                }

                timer.Dispose();
            }

            Connection.Dispose();
        }
    }

    private sealed record Routes(ClusterView View, ShardMap ShardMap, CubbyConnection[] Owners)
    {
        public CubbyConnection OwnerOf(string key) => Owners[View.OwnerIndexOf(ShardMap.SlotOf(key))];
    }

    private static partial class Log
    {
        [LoggerMessage(1, LogLevel.Information, "Routing by cluster view {Version} of {Silos} silos")]
        public static partial void ViewInstalled(ILogger logger, long version, int silos);

        [LoggerMessage(2, LogLevel.Debug, "Closing the connection to {Host}:{Port}: the silo is not in the cluster view")]
        public static partial void ConnectionRetired(ILogger logger, string host, int port);
    }
}
