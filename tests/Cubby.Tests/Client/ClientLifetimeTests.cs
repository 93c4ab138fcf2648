using System.Diagnostics;
using Cubby.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary>
/// A gateway client before its silo exists, while its silo restarts, and after its app stops: calls fail promptly,
/// say why, and succeed again once a silo answers.
/// </summary>
public sealed class ClientLifetimeTests
{
    [Fact]
    public async Task A_client_whose_silo_is_not_up_yet_fails_within_the_connect_timeout_naming_the_gateway_and_works_once_it_is()
    {
        var port = SiloProcess.FreePort();
        await using var app = App(port, o => o.ConnectTimeout = TimeSpan.FromMilliseconds(500));
        var client = app.GetRequiredService<ICubbyClient>();
        var cache = app.GetRequiredService<IDistributedCache>();

        var clock = Stopwatch.StartNew();
        var asyncError = await Assert.ThrowsAsync<CubbyConnectionException>(() => client.GetAsync("k").AsTask().WaitAsync(TestDeadlines.Call));
        Assert.Contains($"127.0.0.1:{port} (Cubby:Client:Endpoints)", asyncError.Message, StringComparison.Ordinal);
        Assert.Contains("Cubby:Client:ConnectTimeout", asyncError.Message, StringComparison.Ordinal);
        var syncError = Assert.Throws<CubbyConnectionException>(() => cache.Get("k"));
        Assert.Contains("Cubby:Client:Endpoints", syncError.Message, StringComparison.Ordinal);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(5), $"two calls took {clock.Elapsed} with a 500 ms connect timeout");

        await using var silo = await TestSilo.StartAsync(o => o.Clustering.GatewayPort = port);
        await Poll.UntilAsync(() => SucceedsAsync(() => client.PutAsync("k", "late"u8.ToArray()).AsTask()), TestDeadlines.Phase, "the client to connect once the silo is up");
        Assert.Equal("late"u8.ToArray(), cache.Get("k"));
    }

    [Fact]
    public async Task A_silo_stopped_and_started_under_a_running_client_fails_its_calls_meanwhile_and_serves_them_again()
    {
        var gatewayPort = SiloProcess.FreePort();
        var silo = await TestSilo.StartAsync(o => o.Clustering.GatewayPort = gatewayPort);
        try
        {
            await using var app = App(gatewayPort, o => o.OperationTimeout = TimeSpan.FromSeconds(2));
            var client = app.GetRequiredService<ICubbyClient>();
            await client.PutAsync("before", "1"u8.ToArray());

            await silo.DisposeAsync();
            // A call sent before the client notices the closed gateway waits out its timeout; one sent after fails as unreachable.
            var error = await Assert.ThrowsAnyAsync<Exception>(() => client.GetAsync("before").AsTask().WaitAsync(TestDeadlines.Call));
            Assert.True(error is CubbyConnectionException or TimeoutException, $"expected the documented failure types, got {error}");
            Assert.Contains("Cubby:Client:OperationTimeout", error.Message, StringComparison.Ordinal);

            silo = await TestSilo.StartAsync(o => o.Clustering.GatewayPort = gatewayPort);
            await Poll.UntilAsync(() => SucceedsAsync(() => client.PutAsync("after", "2"u8.ToArray()).AsTask()), TestDeadlines.Phase, "the client to reach the restarted silo");
            Assert.Equal("2"u8.ToArray(), await client.GetAsync("after"));

            // A lone silo keeps its entries in memory only: the restart lost the first one, as it would for Redis without persistence.
            Assert.Null(await client.GetAsync("before"));
        }
        finally
        {
            await silo.DisposeAsync();
        }
    }

    [Fact]
    public async Task A_call_pending_when_the_app_stops_fails_at_once_and_later_calls_throw_ObjectDisposedException()
    {
        await using var silo = await TestSilo.StartAsync();
        var app = App(silo.GatewayEndPoint.Port, o => o.OperationTimeout = TimeSpan.FromMinutes(1));
        var client = app.GetRequiredService<ICubbyClient>();
        var cache = app.GetRequiredService<IDistributedCache>();
        await client.PutAsync("k", "v"u8.ToArray());
        using var hold = silo.ShardCalls.Hold("k");
        var pending = client.GetAsync("k").AsTask();

        var clock = Stopwatch.StartNew();
        await app.DisposeAsync();

        var error = await Assert.ThrowsAnyAsync<Exception>(() => pending.WaitAsync(TestDeadlines.Call));
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(10), $"the pending call ended {clock.Elapsed} after the app stopped: {error}");
        await Assert.ThrowsAsync<ObjectDisposedException>(() => client.GetAsync("k").AsTask().WaitAsync(TestDeadlines.Call));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => client.PutAsync("k", "w"u8.ToArray()).AsTask().WaitAsync(TestDeadlines.Call));
        Assert.Throws<ObjectDisposedException>(() => cache.Get("k"));
        Assert.Throws<ObjectDisposedException>(() => cache.Set("k", [1], new()));
    }

    private static ServiceProvider App(int gatewayPort, Action<CubbyClientOptions> configure)
    {
        var services = new ServiceCollection();
        services.AddCubbyClient(o =>
        {
            o.Endpoints.Add($"127.0.0.1:{gatewayPort}");
            configure(o);
        }).AddCubbyDistributedCache();
        return services.BuildServiceProvider();
    }

    private static async Task<bool> SucceedsAsync(Func<Task> call)
    {
        try
        {
            await call();
            return true;
        }
        catch (Exception exception) when (exception is CubbyConnectionException or TimeoutException)
        {
            return false;
        }
    }
}
