using Cubby.Client;
using Cubby.Resp;
using Cubby.Silo.Hosting;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary>
/// An in-process silo, a client built the way an application builds it (DI, with the distributed cache), and a plain
/// RESP connection to the silo for looking behind the client's back.
/// </summary>
internal sealed class ClientHarness : IAsyncDisposable
{
    private readonly ServiceProvider _services;

    private ClientHarness(TestSilo silo, ServiceProvider services, RespTestClient monitor)
    {
        Silo = silo;
        _services = services;
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

    public static async Task<ClientHarness> StartAsync(
        RespVersion protocol = RespVersion.Resp3,
        FakeTimeProvider? time = null,
        Action<CubbyClientOptions>? configure = null,
        Action<SiloOptions>? configureSilo = null)
    {
        var silo = await TestSilo.StartAsync(configureSilo, time);
        try
        {
            var endpoint = silo.RespEndPoint;
            var services = new ServiceCollection();
            if (time is not null)
            {
                services.AddSingleton<TimeProvider>(time);
            }

            services.AddCubbyClient(o =>
            {
                o.Endpoints.Add($"127.0.0.1:{endpoint.Port}");
                o.Protocol = protocol;
                configure?.Invoke(o);
            }).AddCubbyDistributedCache();
            var provider = services.BuildServiceProvider();
            var monitor = await silo.ConnectAsync();
            return new ClientHarness(silo, provider, monitor);
        }
        catch
        {
            await silo.DisposeAsync();
            throw;
        }
    }

    /// <summary>Makes the client open its connection, so later calls send only themselves.</summary>
    public async Task WarmUpAsync() => Assert.False(await Client.ExistsAsync("warm-up").AsTask().WaitAsync(TestDeadlines.Call));

    public async ValueTask DisposeAsync()
    {
        await Monitor.DisposeAsync();
        await _services.DisposeAsync();
        await Silo.DisposeAsync();
    }
}
