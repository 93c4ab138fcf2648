using System.Net;
using System.Net.Sockets;

namespace Cubby.AppHost;

/// <summary>Loopback ports nobody listens on, chosen when the model is built so every URL is known before anything starts.</summary>
internal static class FreePort
{
    private static readonly HashSet<int> Taken = [];

    /// <summary>A port free now and not handed out before in this run.</summary>
    public static int Next()
    {
        while (true)
        {
            using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            var port = ((IPEndPoint)socket.LocalEndPoint!).Port;
            lock (Taken)
            {
                if (Taken.Add(port))
                {
                    return port;
                }
            }
        }
    }
}
