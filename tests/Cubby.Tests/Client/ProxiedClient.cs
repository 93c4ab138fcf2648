using System.Net;
using Cubby.Client;
using Cubby.Client.Caching;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Client;

/// <summary>
/// A client whose only connection goes through a <see cref="PausableProxy"/>: the silo listens on 127.0.0.1 and
/// advertises 127.0.0.2 in its cluster view, where the proxy listens on the same port, so the client routes every key
/// through the proxy. The monitor talks to the silo directly.
/// </summary>
internal sealed class ProxiedClient : IAsyncDisposable
{
    private static readonly IPAddress ProxyAddress = IPAddress.Parse("127.0.0.2");

    private ProxiedClient(TestSilo silo, PausableProxy proxy, CubbyClient client, RespTestClient monitor)
    {
        Silo = silo;
        Proxy = proxy;
        Client = client;
        Cache = new CubbyDistributedCache(client);
        Monitor = monitor;
    }

    public TestSilo Silo { get; }

    public PausableProxy Proxy { get; }

    public CubbyClient Client { get; }

    public CubbyDistributedCache Cache { get; }

    public RespTestClient Monitor { get; }

    public static async Task<ProxiedClient> StartAsync(Action<CubbyClientOptions>? configure = null)
    {
        var silo = await TestSilo.StartAsync(o => o.AdvertisedHost = ProxyAddress.ToString());
        var proxy = PausableProxy.Start(new IPEndPoint(ProxyAddress, silo.RespEndPoint.Port), silo.RespEndPoint);
        var options = new CubbyClientOptions();
        options.Endpoints.Add($"{ProxyAddress}:{proxy.EndPoint.Port}");
        configure?.Invoke(options);
        var client = new CubbyClient(Options.Create(options));
        var monitor = await silo.ConnectAsync();
        return new ProxiedClient(silo, proxy, client, monitor);
    }

    public async ValueTask DisposeAsync()
    {
        await Monitor.DisposeAsync();
        Client.Dispose();
        await Proxy.DisposeAsync();
        await Silo.DisposeAsync();
    }
}
