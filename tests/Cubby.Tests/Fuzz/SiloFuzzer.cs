using System.Net;
using System.Net.Sockets;

namespace Cubby.Tests.Fuzz;

/// <summary>
/// Sends <see cref="HostileCommands"/> frames to a silo over several connections at once for a while, draining the
/// replies unread and opening a new connection whenever the silo closes one (as it must after a protocol error) or
/// one has carried enough frames that an unfinished frame would otherwise swallow the rest.
/// </summary>
internal static class SiloFuzzer
{
    private const int FramesPerConnection = 200;

    public static async Task<FuzzTotals> RunAsync(IPEndPoint endPoint, int connections, TimeSpan duration, int seed)
    {
        using var deadline = new CancellationTokenSource(duration);
        var totals = await Task.WhenAll(Enumerable.Range(0, connections).Select(i => Task.Run(() => RunConnectionAsync(endPoint, seed + i, deadline.Token))));
        return totals.Aggregate(static (a, b) => new FuzzTotals(a.Frames + b.Frames, a.Connections + b.Connections, a.ClosedBySilo + b.ClosedBySilo));
    }

    private static async Task<FuzzTotals> RunConnectionAsync(IPEndPoint endPoint, int seed, CancellationToken deadline)
    {
        var commands = new HostileCommands(new Random(seed));
        var drain = new byte[64 * 1024];
        long frames = 0, opened = 0, closed = 0;
        while (!deadline.IsCancellationRequested)
        {
            using var socket = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            try
            {
                await socket.ConnectAsync(endPoint, deadline);
                opened++;
                for (var i = 0; i < FramesPerConnection; i++)
                {
                    // A silo that stops reading (it waits for us to read its replies) is cut off at the deadline.
                    await socket.SendAsync(commands.Next(), SocketFlags.None, deadline);
                    frames++;
                    while (socket.Available > 0)
                    {
                        if (await socket.ReceiveAsync(drain, SocketFlags.None, deadline) == 0)
                        {
                            throw new SocketException((int)SocketError.ConnectionReset);
                        }
                    }
                }
            }
            catch (SocketException)
            {
                closed++;
            }
            catch (OperationCanceledException)
            {
                break;
            }
        }

        return new FuzzTotals(frames, opened, closed);
    }
}

/// <summary>What a fuzz run did: frames sent, connections opened, and how many of those the silo closed.</summary>
internal readonly record struct FuzzTotals(long Frames, long Connections, long ClosedBySilo);
