using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace Cubby.AppHost;

/// <summary>Loopback ports nobody listens on, chosen when the model is built so every URL is known before anything starts.</summary>
/// <remarks>
/// Chosen below the kernel's ephemeral range, which is where a port-0 bind (any other process's "free port") and
/// outgoing connections land: a port picked there could be handed to someone else between this check and the
/// resource binding it, and then the resource's health URL would answer for that other process.
/// </remarks>
internal static class FreePort
{
    private const int LowestPort = 10_000;
    private const string EphemeralRangeFile = "/proc/sys/net/ipv4/ip_local_port_range";
    private const int DefaultEphemeralStart = 32_768;

    private static readonly HashSet<int> Taken = [];

    /// <summary>A port free now, outside the ephemeral range, and not handed out before in this run.</summary>
    public static int Next()
    {
        var highest = EphemeralRangeStart() - 1;
        while (true)
        {
            var port = Random.Shared.Next(LowestPort, highest + 1);
            lock (Taken)
            {
                if (!Taken.Add(port))
                {
                    continue;
                }
            }

            try
            {
                using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
                socket.Bind(new IPEndPoint(IPAddress.Loopback, port));
                return port;
            }
            catch (SocketException)
            {
                // Something listens there: try another.
            }
        }
    }

    private static int EphemeralRangeStart()
    {
        try
        {
            var first = File.ReadAllText(EphemeralRangeFile).Split((char[])['\t', ' '], StringSplitOptions.RemoveEmptyEntries)[0];
            return int.TryParse(first, NumberStyles.None, CultureInfo.InvariantCulture, out var start) && start > LowestPort + 1000 ? start : DefaultEphemeralStart;
        }
        catch (IOException)
        {
            return DefaultEphemeralStart;
        }
        catch (UnauthorizedAccessException)
        {
            return DefaultEphemeralStart;
        }
    }
}
