using System.Net;
using System.Net.Sockets;

namespace Cubby.Silo.Clustering;

/// <summary>Turns a configured port of 0 into a free one, for Orleans, which needs its ports before it binds them.</summary>
internal static class FreePort
{
    private const int LowestPort = 10_000;
    private const string EphemeralRangeFile = "/proc/sys/net/ipv4/ip_local_port_range";

    private static readonly HashSet<int> HandedOut = [];

    public static int Or(int configured, IPAddress address) => configured != 0 ? configured : Pick(address);

    /// <summary>
    /// A port free on <paramref name="address"/> now, not handed out before by this process, and below the kernel's
    /// ephemeral range: between this call and the bind, the kernel can give a port of that range to any socket bound
    /// to port 0 (every outgoing connection's is), and then the bind fails.
    /// </summary>
    public static int Pick(IPAddress address)
    {
        var last = EphemeralRangeStart() - 1;
        while (true)
        {
            var port = Random.Shared.Next(LowestPort, last + 1);
            lock (HandedOut)
            {
                if (!HandedOut.Add(port))
                {
                    continue;
                }
            }

            try
            {
                using var probe = new Socket(address.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
                probe.Bind(new IPEndPoint(address, port));
                return port;
            }
            catch (SocketException)
            {
                // Taken by something else: try another.
            }
        }
    }

    private static int EphemeralRangeStart() =>
        File.Exists(EphemeralRangeFile)
            && int.TryParse(File.ReadAllText(EphemeralRangeFile).Split((char[])['\t', ' '], StringSplitOptions.RemoveEmptyEntries)[0], out var start)
            && start > 2 * LowestPort
            ? start
            : 32_768;
}
