using System.Collections.Concurrent;
using Cubby.Client.Connections;
using Cubby.Cluster;
using Cubby.Resp;
using Cubby.Sharding;
using Microsoft.Extensions.Logging;

namespace Cubby.Client.Routing;

/// <summary>
/// Sends each key straight to the silo that owns its slot: reads the cluster view from the seed endpoints, hashes
/// keys with the view's <see cref="ShardMap"/>, and keeps one multiplexed connection per silo.
/// </summary>
internal sealed class ClusterRouter : IDisposable
{
    private readonly CubbyClientOptions _options;
    private readonly ILoggerFactory _loggers;
    private readonly TimeProvider _time;
    // Lazy: GetOrAdd may run its factory on several racing threads, and a connection made but not kept would leak
    // its socket and reader thread.
    private readonly ConcurrentDictionary<(string Host, int Port), Lazy<CubbyConnection>> _connections = new();
    private readonly Lock _viewLock = new();
    private Routes? _routes;

    public ClusterRouter(CubbyClientOptions options, ILoggerFactory loggers, TimeProvider time)
    {
        _options = options;
        _loggers = loggers;
        _time = time;
    }

    /// <summary>The view in use, once read.</summary>
    public ClusterView? View => _routes?.View;

    /// <summary>The connection to the owner of <paramref name="key"/>, reading the view first if need be.</summary>
    public CubbyConnection ConnectionFor(string key)
    {
        var routes = _routes ?? LoadView();
        return routes.Owners[routes.View.OwnerIndexOf(routes.ShardMap.SlotOf(key))];
    }

    /// <summary>The same without blocking: the view is read asynchronously the first time.</summary>
    public ValueTask<CubbyConnection> ConnectionForAsync(string key, CancellationToken cancellationToken)
    {
        var routes = _routes;
        return routes is not null
            ? ValueTask.FromResult(routes.Owners[routes.View.OwnerIndexOf(routes.ShardMap.SlotOf(key))])
            : LoadViewThenRouteAsync(key, cancellationToken);
    }

    /// <summary>Reads the view again from the known silos and seeds.</summary>
    public async ValueTask RefreshViewAsync(CancellationToken cancellationToken)
    {
        List<Exception>? failures = null;
        foreach (var (host, port) in Candidates())
        {
            try
            {
                var connection = Connect(host, port);
                var writer = CommandBuffer.Start();
                writer.WriteArrayHeader(1);
                writer.WriteBulkString(CubbyProtocol.View);
                var view = await connection.ExecuteAsync(CommandBuffer.Written, Replies.View, null, cancellationToken).ConfigureAwait(false);
                Install(view);
                return;
            }
            catch (Exception exception) when (exception is CubbyException or TimeoutException)
            {
                (failures ??= []).Add(exception);
            }
        }

        throw NoSeedAnswered(failures);
    }

    public void Dispose()
    {
        foreach (var connection in _connections.Values)
        {
            if (connection.IsValueCreated)
            {
                connection.Value.Dispose();
            }
        }

        _connections.Clear();
    }

    private async ValueTask<CubbyConnection> LoadViewThenRouteAsync(string key, CancellationToken cancellationToken)
    {
        await RefreshViewAsync(cancellationToken).ConfigureAwait(false);
        return ConnectionFor(key);
    }

    private Routes LoadView()
    {
        lock (_viewLock)
        {
            if (_routes is { } loaded)
            {
                return loaded;
            }

            List<Exception>? failures = null;
            foreach (var (host, port) in Candidates())
            {
                try
                {
                    var writer = CommandBuffer.Start();
                    writer.WriteArrayHeader(1);
                    writer.WriteBulkString(CubbyProtocol.View);
                    return Install(Connect(host, port).Execute(CommandBuffer.Written, Replies.View, null));
                }
                catch (Exception exception) when (exception is CubbyException or TimeoutException)
                {
                    (failures ??= []).Add(exception);
                }
            }

            throw NoSeedAnswered(failures);
        }
    }

    private Routes Install(ClusterView view)
    {
        var owners = new CubbyConnection[view.Silos.Count];
        for (var i = 0; i < owners.Length; i++)
        {
            owners[i] = Connect(view.Silos[i].Host, view.Silos[i].Port);
        }

        var routes = new Routes(view, new ShardMap(view.SlotCount), owners);
        lock (_viewLock)
        {
            if (_routes is null || _routes.View.Version <= view.Version)
            {
                _routes = routes;
            }

            return _routes;
        }
    }

    private IEnumerable<(string Host, int Port)> Candidates()
    {
        if (_routes is { } routes)
        {
            foreach (var silo in routes.View.Silos)
            {
                yield return (silo.Host, silo.Port);
            }
        }

        foreach (var endpoint in _options.Endpoints)
        {
            if (EndpointAddress.TryParse(endpoint, out var host, out var port))
            {
                yield return (host, port);
            }
        }
    }

    private CubbyConnection Connect(string host, int port) =>
        _connections.GetOrAdd((host, port), static (endpoint, router) => new Lazy<CubbyConnection>(() =>
            new CubbyConnection(endpoint.Host, endpoint.Port, router._options, router._loggers.CreateLogger<CubbyConnection>(), router._time)), this).Value;

    private CubbyConnectionException NoSeedAnswered(List<Exception>? failures) =>
        new($"No silo answered with the cluster view; tried {string.Join(", ", _options.Endpoints)} (Cubby:Client:Endpoints).",
            failures is null ? null : new AggregateException(failures));

    private sealed record Routes(ClusterView View, ShardMap ShardMap, CubbyConnection[] Owners);
}
