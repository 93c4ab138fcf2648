using System.Net;
using Microsoft.Extensions.Options;
using Orleans.Configuration;
using Orleans.Messaging;
using Orleans.Runtime;

namespace Cubby.Client.Gateways;

/// <summary>
/// The gateways of <see cref="CubbyClientOptions.Endpoints"/>, host names resolved again on every refresh so a silo
/// that comes back at a new address is found.
/// </summary>
internal sealed class EndpointGatewayList(IOptions<CubbyClientOptions> options, IOptions<GatewayOptions> gateways) : IGatewayListProvider
{
    public TimeSpan MaxStaleness => gateways.Value.GatewayListRefreshPeriod;

    [Obsolete("Orleans no longer reads it; every provider is updatable.")]
    public bool IsUpdatable => true;

    public Task InitializeGatewayListProvider() => Task.CompletedTask;

    public async Task<IList<Uri>> GetGateways()
    {
        var uris = new List<Uri>();
        foreach (var endpoint in options.Value.Endpoints)
        {
            if (!EndpointAddress.TryParse(endpoint, out var host, out var port))
            {
                continue;
            }

            if (IPAddress.TryParse(host, out var address))
            {
                uris.Add(new IPEndPoint(address, port).ToGatewayUri());
                continue;
            }

            try
            {
                foreach (var resolved in await Dns.GetHostAddressesAsync(host).ConfigureAwait(false))
                {
                    uris.Add(new IPEndPoint(resolved, port).ToGatewayUri());
                }
            }
            catch (System.Net.Sockets.SocketException)
            {
                // A name that does not resolve now may later; the other gateways still count.
            }
        }

        return uris;
    }
}
