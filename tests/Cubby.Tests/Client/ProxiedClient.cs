using System.Net;
using Cubby.Client;
using Cubby.Client.Caching;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Client;

/// <summary>
/// A client whose only endpoint is a <see cref="PausableProxy"/> in front of the silo, so every call goes through the
/// proxy. The monitor talks to the silo directly.
/// </summary>
internal sealed class ProxiedClient : IAsyncDisposable
{
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
        var silo = await TestSilo.StartAsync();
        var proxy = PausableProxy.Start(new IPEndPoint(IPAddress.Loopback, 0), silo.RespEndPoint);
        var options = new CubbyClientOptions();
        options.Endpoints.Add($"127.0.0.1:{proxy.EndPoint.Port}");
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
