using System.Diagnostics;
using Cubby.Client;
using Cubby.Client.Caching;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Client;

/// <summary>A client before its silo exists, with the wrong password, and after it is disposed: calls fail promptly and say why.</summary>
public sealed class ClientLifetimeTests
{
    [Fact]
    public async Task A_client_whose_silo_is_not_up_yet_fails_within_the_connect_timeout_and_works_once_it_is()
    {
        var port = FreePorts.Next();
        var options = new CubbyClientOptions
        {
            ConnectTimeout = TimeSpan.FromMilliseconds(500),
            ReconnectMinDelay = TimeSpan.FromMilliseconds(20),
            ReconnectMaxDelay = TimeSpan.FromMilliseconds(100),
        };
        options.Endpoints.Add($"127.0.0.1:{port}");
        using var client = new CubbyClient(Options.Create(options));
        var cache = new CubbyDistributedCache(client);

        var clock = Stopwatch.StartNew();
        var asyncError = await Assert.ThrowsAsync<CubbyConnectionException>(() => client.GetAsync("k").AsTask().WaitAsync(TestDeadlines.Call));
        Assert.Contains("Cubby:Client:Endpoints", asyncError.Message, StringComparison.Ordinal);
        var syncError = Assert.Throws<CubbyConnectionException>(() => cache.Get("k"));
        Assert.Contains("Cubby:Client:Endpoints", syncError.Message, StringComparison.Ordinal);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(5), $"two calls took {clock.Elapsed} with a 500 ms connect timeout");

        await using var silo = await TestSilo.StartAsync(o => o.RespPort = port);
        await Poll.UntilAsync(async () =>
        {
            try
            {
                return await client.PutAsync("k", "late"u8.ToArray()) == WriteOutcome.Created;
            }
            catch (CubbyConnectionException)
            {
                return false;
            }
        });
        Assert.Equal("late"u8.ToArray(), cache.Get("k"));
    }

    [Fact]
    public async Task The_password_is_sent_in_the_handshake_and_a_wrong_one_is_reported()
    {
        await using var silo = await TestSilo.StartAsync(o => o.Password = "right");

        using var authorized = Create(silo, "right");
        Assert.Equal(WriteOutcome.Created, await authorized.PutAsync("k", "v"u8.ToArray()));
        Assert.Equal("v"u8.ToArray(), await authorized.GetAsync("k"));

        // Every call fails; once the first handshake has been refused, the failure carries the silo's reason.
        using var refused = Create(silo, "wrong");
        await AssertFailsSayingAsync(refused, "WRONGPASS");
        using var anonymous = Create(silo, null);
        await AssertFailsSayingAsync(anonymous, "NOAUTH");
        Assert.False(await authorized.ExistsAsync("written-by-refused"));

        static async Task AssertFailsSayingAsync(CubbyClient client, string reason)
        {
            await Poll.UntilAsync(
                async () =>
                {
                    var error = await Assert.ThrowsAsync<CubbyConnectionException>(() => client.PutAsync("written-by-refused", new byte[] { 1 }).AsTask().WaitAsync(TestDeadlines.Call));
                    return error.ToString().Contains(reason, StringComparison.Ordinal);
                },
                what: $"a failure naming {reason}");
        }

        static CubbyClient Create(TestSilo silo, string? password)
        {
            var options = new CubbyClientOptions { Password = password, ConnectTimeout = TimeSpan.FromSeconds(2) };
            options.Endpoints.Add($"127.0.0.1:{silo.RespEndPoint.Port}");
            return new CubbyClient(Options.Create(options));
        }
    }

    [Fact]
    public async Task A_call_pending_when_the_client_is_disposed_fails_at_once()
    {
        await using var setup = await ProxiedClient.StartAsync(o => o.OperationTimeout = TimeSpan.FromMinutes(1));
        await setup.Client.PutAsync("k", "v"u8.ToArray());
        setup.Proxy.PauseReplies();
        var pending = setup.Client.GetAsync("k").AsTask();

        setup.Client.Dispose();

        var error = await Assert.ThrowsAnyAsync<Exception>(() => pending.WaitAsync(TestDeadlines.Call));
        Assert.True(error is ObjectDisposedException or CubbyConnectionException, $"unexpected {error}");
    }

    [Fact]
    public async Task Calls_on_a_disposed_client_throw_ObjectDisposedException_at_once()
    {
        await using var silo = await TestSilo.StartAsync();
        var options = new CubbyClientOptions { ConnectTimeout = TimeSpan.FromSeconds(20) };
        options.Endpoints.Add($"127.0.0.1:{silo.RespEndPoint.Port}");
        var client = new CubbyClient(Options.Create(options));
        var cache = new CubbyDistributedCache(client);
        await client.PutAsync("k", "v"u8.ToArray());

        client.Dispose();
        client.Dispose();

        var clock = Stopwatch.StartNew();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => client.GetAsync("k").AsTask().WaitAsync(TestDeadlines.Call));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => client.PutAsync("k", "w"u8.ToArray()).AsTask().WaitAsync(TestDeadlines.Call));
        Assert.Throws<ObjectDisposedException>(() => cache.Get("k"));
        Assert.Throws<ObjectDisposedException>(() => cache.Set("k", [1], new()));
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(2), $"calls on a disposed client took {clock.Elapsed}");
    }
}
