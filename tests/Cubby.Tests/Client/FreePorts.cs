using System.Net;
using System.Net.Sockets;

namespace Cubby.Tests.Client;

internal static class FreePorts
{
    /// <summary>A loopback port free right now (bound and released), for a silo that must come back on the same port.</summary>
    public static int Next()
    {
        var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        var port = ((IPEndPoint)listener.LocalEndpoint).Port;
        listener.Stop();
        return port;
    }
}
