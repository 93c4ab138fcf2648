using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Options;
using Orleans.Configuration;

namespace Cubby.Silo.Hosting;

/// <summary>
/// Stops a silo from starting when another process already listens on one of its ports, and names the setting.
/// Kestrel's own bind fails on a taken port. Orleans sets <see cref="SocketOptionName.ReuseAddress"/> on its listeners,
/// though, and .NET on Linux and macOS adds SO_REUSEPORT to it: a second silo given the same
/// <c>Cubby:Clustering:SiloPort</c> or <c>GatewayPort</c> started without an error, and the kernel split the port's
/// connections between the two processes. This check binds each port once with SO_REUSEADDR alone. A listening socket
/// refuses that bind; a closed connection's TIME_WAIT does not, so a silo restarted at once still starts. The check runs
/// first in the silo's lifecycle, before Orleans binds a port or joins the cluster.
/// </summary>
internal sealed class ListeningPortCheck(IOptions<SiloOptions> silo, IOptions<EndpointOptions> endpoints) : ILifecycleParticipant<ISiloLifecycle>
{
    public void Participate(ISiloLifecycle lifecycle) =>
        lifecycle.Subscribe(nameof(ListeningPortCheck), ServiceLifecycleStage.First, _ =>
        {
            ThrowIfTaken();
            return Task.CompletedTask;
        });

    /// <summary>Throws <see cref="SiloStartException"/> naming the first configured port another process listens on.</summary>
    public void ThrowIfTaken()
    {
        foreach (var (setting, endpoint) in Ports())
        {
            if (endpoint.Port != 0 && IsListenedOn(endpoint))
            {
                throw new SiloStartException(
                    $"{setting} {endpoint.Port} is in use: another process listens on {endpoint}. Stop it, or give this silo another port.");
            }
        }
    }

    private IEnumerable<(string Setting, IPEndPoint Endpoint)> Ports()
    {
        var options = silo.Value;
        var address = options.Host switch
        {
            "*" => IPAddress.Any,
            "localhost" => IPAddress.Loopback,
            var host => IPAddress.Parse(host),
        };
        yield return ("Cubby:RespPort", new IPEndPoint(address, options.RespPort));
        yield return ("Cubby:HttpPort", new IPEndPoint(address, options.HttpPort));
        if (options.Tls.Enabled && options.Tls.Port is { } tlsPort)
        {
            yield return ("Cubby:Tls:Port", new IPEndPoint(address, tlsPort));
        }

        // Where Orleans' listeners bind, as its EndpointOptions decides it.
        var orleans = endpoints.Value;
        yield return ("Cubby:Clustering:SiloPort", orleans.SiloListeningEndpoint ?? new IPEndPoint(orleans.AdvertisedIPAddress, orleans.SiloPort));
        yield return ("Cubby:Clustering:GatewayPort", orleans.GatewayListeningEndpoint ?? new IPEndPoint(orleans.AdvertisedIPAddress, orleans.GatewayPort));
    }

    private static bool IsListenedOn(IPEndPoint endpoint)
    {
        using var probe = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        if (OperatingSystem.IsWindows())
        {
            probe.ExclusiveAddressUse = true;
        }
        else
        {
            // ReuseAddress would set SO_REUSEPORT too, which lets the bind share a listener's port: set SO_REUSEADDR only.
            var (level, name) = OperatingSystem.IsLinux() ? (1, 2) : (0xFFFF, 0x4);
            probe.SetRawSocketOption(level, name, BitConverter.GetBytes(1));
        }

        try
        {
            probe.Bind(endpoint);
            return false;
        }
        catch (SocketException exception) when (exception.SocketErrorCode == SocketError.AddressAlreadyInUse)
        {
            return true;
        }
    }
}
