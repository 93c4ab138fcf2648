using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Cubby.Load.Persistence;

/// <summary>
/// Watches a server's RESP port from before its process starts, over a plain socket (no client library's connect
/// timeouts or retries in the way): when it first answers PING with PONG (Redis answers <c>-LOADING</c> while it loads,
/// a Cubby silo does not listen until it has loaded), and when DBSIZE first counts the entries expected.
/// </summary>
internal static class LoadProbe
{
    private static readonly TimeSpan ReplyLimit = TimeSpan.FromSeconds(60);

    /// <summary>
    /// Polls until DBSIZE reaches <paramref name="expected"/> or <paramref name="clock"/> passes <paramref name="limit"/>;
    /// the times are <paramref name="clock"/>'s, and the count the last DBSIZE answered (0 when none did).
    /// </summary>
    public static async Task<(TimeSpan Ping, TimeSpan Loaded, long Entries)> WatchAsync(int port, long expected, Stopwatch clock, TimeSpan limit, CancellationToken cancellation)
    {
        TimeSpan? ping = null;
        long entries = 0;
        while (clock.Elapsed < limit)
        {
            try
            {
                using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
                await socket.ConnectAsync(new IPEndPoint(IPAddress.Loopback, port), cancellation).ConfigureAwait(false);
                while (clock.Elapsed < limit)
                {
                    if (ping is null)
                    {
                        if (await AskAsync(socket, "PING", cancellation).ConfigureAwait(false) != "+PONG")
                        {
                            await Task.Delay(10, cancellation).ConfigureAwait(false);
                            continue;
                        }

                        ping = clock.Elapsed;
                    }

                    var reply = await AskAsync(socket, "DBSIZE", cancellation).ConfigureAwait(false);
                    if (reply.StartsWith(':') && long.TryParse(reply.AsSpan(1), NumberStyles.Integer, CultureInfo.InvariantCulture, out var count))
                    {
                        entries = count;
                        if (count >= expected)
                        {
                            return (ping.Value, clock.Elapsed, count);
                        }
                    }

                    await Task.Delay(20, cancellation).ConfigureAwait(false);
                }
            }
            catch (Exception exception) when (exception is SocketException or IOException || (exception is OperationCanceledException && !cancellation.IsCancellationRequested))
            {
                // Not listening yet, the connection went away, or a reply did not come: try again.
                await Task.Delay(10, cancellation).ConfigureAwait(false);
            }
        }

        return (ping ?? clock.Elapsed, clock.Elapsed, entries);
    }

    /// <summary>Sends an inline command and reads its one-line reply (a simple string, an error or an integer).</summary>
    private static async Task<string> AskAsync(Socket socket, string command, CancellationToken cancellation)
    {
        using var limit = CancellationTokenSource.CreateLinkedTokenSource(cancellation);
        limit.CancelAfter(ReplyLimit);
        await socket.SendAsync(Encoding.ASCII.GetBytes(command + "\r\n"), SocketFlags.None, limit.Token).ConfigureAwait(false);
        var reply = new StringBuilder();
        var buffer = new byte[256];
        while (true)
        {
            var read = await socket.ReceiveAsync(buffer, SocketFlags.None, limit.Token).ConfigureAwait(false);
            if (read == 0)
            {
                throw new IOException($"The server closed the connection after {command}.");
            }

            reply.Append(Encoding.ASCII.GetString(buffer, 0, read));
            if (reply.Length >= 2 && reply[^2] == '\r' && reply[^1] == '\n')
            {
                return reply.ToString(0, reply.Length - 2);
            }
        }
    }
}
