using Cubby.Client.Connections;
using Microsoft.Extensions.Logging;

namespace Cubby.Client.Routing;

/// <summary>
/// Sends every call to the preferred endpoint: the first of <see cref="CubbyClientOptions.Endpoints"/>, in the order
/// configured, whose connection is not known to be down. Every silo serves every key (it reaches the key's shard
/// through the cluster), so the order only decides which silo takes the calls. Each endpoint has one multiplexed
/// <see cref="CubbyConnection"/>, made when a call first needs it; a lost connection reconnects in the background, and
/// calls go back to an earlier endpoint as soon as it is up again.
/// </summary>
internal sealed partial class SeedRouter : IDisposable
{
    private readonly CubbyClientOptions _options;
    private readonly ILoggerFactory _loggers;
    private readonly ILogger _logger;
    private readonly TimeProvider _time;
    private readonly (string Host, int Port)[] _endpoints;

    // Made under _sync, read without it.
    private readonly CubbyConnection?[] _connections;
    private readonly Lock _sync = new();
    private int _preferred = -1;
    private volatile bool _disposed;

    public SeedRouter(CubbyClientOptions options, ILoggerFactory loggers, TimeProvider time)
    {
        _options = options;
        _loggers = loggers;
        _logger = loggers.CreateLogger<SeedRouter>();
        _time = time;
        var endpoints = new List<(string Host, int Port)>();
        foreach (var endpoint in options.Endpoints)
        {
            if (EndpointAddress.TryParse(endpoint, out var host, out var port) && !endpoints.Contains((host, port)))
            {
                endpoints.Add((host, port));
            }
        }

        _endpoints = [.. endpoints];
        _connections = new CubbyConnection?[_endpoints.Length];
    }

    /// <summary>The connections made so far (one per endpoint a call needed), for tests.</summary>
    internal int OpenConnections
    {
        get
        {
            lock (_sync)
            {
                return _connections.Count(connection => connection is not null);
            }
        }
    }

    public void Dispose()
    {
        CubbyConnection?[] open;
        lock (_sync)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            open = [.. _connections];
        }

        foreach (var connection in open)
        {
            connection?.Dispose();
        }
    }

    /// <summary>
    /// The index of the endpoint a call goes to: the first, among those the call has not <paramref name="tried"/>
    /// yet, whose connection is not known to be down; an endpoint with no connection yet gets one. -1 when none is left.
    /// </summary>
    private int Pick(bool[]? tried)
    {
        for (var i = 0; i < _endpoints.Length; i++)
        {
            if (tried?[i] == true)
            {
                continue;
            }

            var connection = Volatile.Read(ref _connections[i]) ?? Connect(i);
            if (connection.IsDown)
            {
                continue;
            }

            if (tried is null && Volatile.Read(ref _preferred) != i && Interlocked.Exchange(ref _preferred, i) != i)
            {
                Log.Preferred(_logger, connection.Host, connection.Port);
            }

            return i;
        }

        return -1;
    }

    private CubbyConnection Connect(int index)
    {
        lock (_sync)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            var (host, port) = _endpoints[index];
            return _connections[index] ??= new CubbyConnection(host, port, _options, _loggers.CreateLogger<CubbyConnection>(), _time);
        }
    }

    /// <summary>
    /// The failure of a call no endpoint is left to take: they are all down, or failed it. It carries the call's last
    /// failure, or else why the first endpoint is down.
    /// </summary>
    private CubbyConnectionException NoSiloCanTake(Exception? failure)
    {
        if (_endpoints.Length == 0)
        {
            return new CubbyConnectionException("No silo to send the call to: Cubby:Client:Endpoints lists none as host:port.");
        }

        var reason = failure ?? Volatile.Read(ref _connections[0])?.NotConnected();
        return new CubbyConnectionException(
            $"No silo of Cubby:Client:Endpoints ({string.Join(", ", _endpoints.Select(e => $"{e.Host}:{e.Port}"))}) could take the call: {reason?.Message ?? "all are down"}",
            reason);
    }

    private static partial class Log
    {
        // Ids 1-3 are CubbyConnection's, 4 was its view push.
        [LoggerMessage(5, LogLevel.Information, "Calls go to the silo at {Host}:{Port}: the first of Cubby:Client:Endpoints not known to be down")]
        public static partial void Preferred(ILogger logger, string host, int port);
    }
}
