using System.Net;
using Microsoft.Extensions.Options;
using Orleans.Configuration;
using Orleans.Messaging;
using Orleans.Runtime;

namespace Cubby.Client.Gateways;

/// <summary>
/// Every active silo's gateway once the client has learned them from the cluster (<see cref="LearnedGateways"/>); before
/// that, and beside them while asking fails, the gateways of <see cref="CubbyClientOptions.Endpoints"/>, host names
/// resolved again on every refresh so a silo that comes back at a new address is found. A configured address that is
/// not a silo's own (a load balancer's, a DNS alias) leaves the list while the silos are known, so every call goes to
/// its silo directly.
/// </summary>
internal sealed class EndpointGatewayList(IOptions<CubbyClientOptions> options, IOptions<GatewayOptions> gateways, LearnedGateways learned) : IGatewayListProvider
{
    public TimeSpan MaxStaleness => gateways.Value.GatewayListRefreshPeriod;

    [Obsolete("Orleans no longer reads it; every provider is updatable.")]
    public bool IsUpdatable => true;

    public Task InitializeGatewayListProvider() => Task.CompletedTask;

    public async Task<IList<Uri>> GetGateways()
    {
        var silos = learned.Gateways;
        if (silos.Count > 0 && !learned.Doubted)
        {
            return [.. silos];
        }

        var uris = new List<Uri>(silos);
        foreach (var endpoint in options.Value.Endpoints)
        {
            if (!EndpointAddress.TryParse(endpoint, out var host, out var port))
            {
                continue;
            }

            if (IPAddress.TryParse(host, out var address))
            {
                Add(uris, new IPEndPoint(address, port));
                continue;
            }

            try
            {
                foreach (var resolved in await Dns.GetHostAddressesAsync(host).ConfigureAwait(false))
                {
                    Add(uris, new IPEndPoint(resolved, port));
                }
            }
            catch (System.Net.Sockets.SocketException)
            {
                // A name that does not resolve now may later; the other gateways still count.
            }
        }

        return uris;
    }

    private static void Add(List<Uri> uris, IPEndPoint endpoint)
    {
        var uri = endpoint.ToGatewayUri();
        if (!uris.Contains(uri))
        {
            uris.Add(uri);
        }
    }
}
