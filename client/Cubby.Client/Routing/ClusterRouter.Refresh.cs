using Cubby.Client.Connections;

namespace Cubby.Client.Routing;

internal sealed partial class ClusterRouter
{
    /// <summary>
    /// Reads the view on the refresher's thread: from the silos of the view in use, then from the seeds; connected
    /// silos first (they answer at once), then those not tried yet. Silos known to be down (their last attempt to
    /// connect failed) are not waited for: their connections keep retrying in the background, and a later refresh
    /// asks them once they are back. Returns why no view was read, or null.
    /// </summary>
    private Exception? RefreshOnce()
    {
        var routes = _routes;
        var candidates = CandidatesOf(routes);
        var asked = new bool[candidates.Count];
        List<Exception>? failures = null;
        try
        {
            for (var pass = 0; pass < 2; pass++)
            {
                for (var i = 0; i < candidates.Count; i++)
                {
                    var (host, port, inView) = candidates[i];
                    if (asked[i])
                    {
                        continue;
                    }

                    CubbyConnection? connection;
                    lock (_viewLock)
                    {
                        connection = pass == 0 ? _connections.GetValueOrDefault((host, port)) : Connect(host, port);
                    }

                    if (connection is null || (pass == 0 && !connection.IsConnected))
                    {
                        continue;
                    }

                    asked[i] = true;
                    if (connection.IsDown || !connection.WaitForFirstAttempt(_options.ConnectTimeout) || !connection.IsConnected)
                    {
                        (failures ??= []).Add(connection.NotConnected());
                        continue;
                    }

                    try
                    {
                        var writer = CommandBuffer.Start();
                        writer.WriteArrayHeader(1);
                        writer.WriteBulkString(CubbyProtocol.View);
                        Install(connection.Execute(CommandBuffer.Written, Replies.View, null), onlyIfNewer: inView);
                        return null;
                    }
                    catch (Exception exception) when (exception is CubbyException or TimeoutException)
                    {
                        (failures ??= []).Add(exception);
                    }
                }
            }

            return NoSeedAnswered(candidates, failures);
        }
        catch (ObjectDisposedException exception)
        {
            return exception;
        }
        finally
        {
            lock (_viewLock)
            {
                // Seeds asked but not in the view must not go on reconnecting forever.
                if (!_disposed && _routes is { } installed)
                {
                    RetireConnectionsOutside(installed);
                }
            }
        }
    }

    /// <summary>The silos of the view, then the seeds that are not among them.</summary>
    private List<(string Host, int Port, bool InView)> CandidatesOf(Routes? routes)
    {
        var candidates = new List<(string Host, int Port, bool InView)>();
        foreach (var silo in routes?.View.Silos ?? [])
        {
            candidates.Add((silo.Host, silo.Port, true));
        }

        foreach (var endpoint in _options.Endpoints)
        {
            if (EndpointAddress.TryParse(endpoint, out var host, out var port) && !candidates.Exists(c => c.Host == host && c.Port == port))
            {
                candidates.Add((host, port, false));
            }
        }

        return candidates;
    }

    private static CubbyConnectionException NoSeedAnswered(List<(string Host, int Port, bool InView)> candidates, List<Exception>? failures) =>
        new($"No silo answered with the cluster view; tried {string.Join(", ", candidates.Select(c => $"{c.Host}:{c.Port}"))} (the view's silos, then Cubby:Client:Endpoints).",
            failures is null ? null : new AggregateException(failures));
}
