using System.Net;
using System.Net.Sockets;

namespace Cubby.Silo.Clustering;

/// <summary>Turns a configured port of 0 into a free one, for Orleans, which needs its ports before it binds them.</summary>
internal static class FreePort
{
    public static int Or(int configured, IPAddress address)
    {
        if (configured != 0)
        {
            return configured;
        }

        using var listener = new TcpListener(address, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
