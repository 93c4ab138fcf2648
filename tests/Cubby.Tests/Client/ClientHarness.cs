using Cubby.Client;
using Cubby.Silo.Hosting;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary>
/// An in-process silo, a client built the way an application builds it (DI, with the distributed cache) on the chosen
/// route, and a plain RESP connection to the silo for looking behind the client's back.
/// </summary>
internal sealed class ClientHarness : IAsyncDisposable
{
    private readonly ServiceProvider? _app;

    private ClientHarness(TestSilo silo, IServiceProvider services, ServiceProvider? app, RespTestClient monitor)
    {
        Silo = silo;
        _app = app;
        Monitor = monitor;
        Client = services.GetRequiredService<ICubbyClient>();
        Cache = services.GetRequiredService<IDistributedCache>();
        BufferCache = services.GetRequiredService<IBufferDistributedCache>();
    }

    public TestSilo Silo { get; }

    public RespTestClient Monitor { get; }

    public ICubbyClient Client { get; }

    public IDistributedCache Cache { get; }

    public IBufferDistributedCache BufferCache { get; }

    /// <summary>Starts a silo and a client on <paramref name="route"/>.</summary>
    /// <param name="route">Through the gateway, or inside the silo's host.</param>
    /// <param name="time">
    /// The silo's entry clock, and the client's clock for absolute expiry; only on <see cref="ClientRoute.Gateway"/>,
    /// since a co-hosted client shares the silo's services, whose Orleans runtime needs real time.
    /// </param>
    public static async Task<ClientHarness> StartAsync(
        ClientRoute route = ClientRoute.Gateway,
        FakeTimeProvider? time = null,
        Action<CubbyClientOptions>? configure = null,
        Action<SiloOptions>? configureSilo = null)
    {
        if (route == ClientRoute.CoHosted && time is not null)
        {
            throw new ArgumentException("A co-hosted client runs on the silo's real clock.", nameof(time));
        }

        var silo = await TestSilo.StartAsync(
            configureSilo,
            time,
            route == ClientRoute.CoHosted ? services => services.AddCubbyClient(configure).AddCubbyDistributedCache() : null);
        try
        {
            var monitor = await silo.ConnectAsync();
            if (route == ClientRoute.CoHosted)
            {
                return new ClientHarness(silo, silo.Services, null, monitor);
            }

            var app = GatewayApp(silo, time, configure);
            return new ClientHarness(silo, app, app, monitor);
        }
        catch
        {
            await silo.DisposeAsync();
            throw;
        }
    }

    /// <summary>An app's services with Cubby's gateway client for <paramref name="silo"/>; it connects on its first call.</summary>
    public static ServiceProvider GatewayApp(TestSilo silo, TimeProvider? time = null, Action<CubbyClientOptions>? configure = null)
    {
        var services = new ServiceCollection();
        if (time is not null)
        {
            services.AddSingleton(time);
        }

        services.AddCubbyClient(o =>
        {
            o.Endpoints.Add($"127.0.0.1:{silo.GatewayEndPoint.Port}");
            configure?.Invoke(o);
        }).AddCubbyDistributedCache();
        return services.BuildServiceProvider();
    }

    /// <summary>Makes the client connect, so later calls send only themselves.</summary>
    public async Task WarmUpAsync() => Assert.False(await Client.ExistsAsync("warm-up").AsTask().WaitAsync(TestDeadlines.Call));

    public async ValueTask DisposeAsync()
    {
        await Monitor.DisposeAsync();
        if (_app is not null)
        {
            await _app.DisposeAsync();
        }

        await Silo.DisposeAsync();
    }
}
