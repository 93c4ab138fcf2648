using System.Diagnostics;
using Cubby.Client;
using Cubby.Client.Caching;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Client;

/// <summary>
/// Which endpoint a call goes to, against <see cref="StandInSilo"/>s that answer reads with their own name: the first
/// of Cubby:Client:Endpoints not known to be down, with a connection made only to endpoints a call needed; the next
/// one when the first goes down, the first again once it is back; and a prompt failure naming them all when every one
/// is down.
/// </summary>
public sealed class SeedRoutingTests
{
    [Fact]
    public async Task Every_call_goes_to_the_first_endpoint_over_one_connection_and_the_others_are_never_connected()
    {
        await using var first = StandInSilo.Answering("first");
        await using var second = StandInSilo.Answering("second");
        using var client = Create(first.Endpoint, second.Endpoint);
        var cache = new CubbyDistributedCache(client);

        var reads = await Task.WhenAll(Enumerable.Range(0, 50).Select(i => client.GetAsync($"k{i}").AsTask()));
        Assert.All(reads, read => Assert.Equal("first"u8.ToArray(), read));
        Assert.Equal("first"u8.ToArray(), cache.Get("sync"));

        Assert.Equal(1, client.Router.OpenConnections);
        Assert.Equal(1, first.OpenConnections);
        Assert.Equal(0, second.OpenConnections);
        Assert.Empty(second.Commands);
    }

    [Fact]
    public async Task A_dead_first_endpoint_is_skipped_at_once_by_async_and_sync_calls()
    {
        await using var live = StandInSilo.Answering("live");
        var dead = $"127.0.0.1:{FreePorts.Next()}";

        // A connect timeout far longer than the test's deadline: skipping the dead endpoint must not wait it out.
        var connectTimeout = TimeSpan.FromMinutes(1);
        using var asyncFirst = Create(connectTimeout, dead, live.Endpoint);
        Assert.Equal("live"u8.ToArray(), await asyncFirst.GetAsync("k").AsTask().WaitAsync(TestDeadlines.Call));
        Assert.Equal(2, asyncFirst.Router.OpenConnections);

        using var syncFirst = Create(connectTimeout, dead, live.Endpoint);
        var cache = new CubbyDistributedCache(syncFirst);
        Assert.Equal("live"u8.ToArray(), await Task.Run(() => cache.Get("k")).WaitAsync(TestDeadlines.Call));
    }

    [Fact]
    public async Task A_first_endpoint_still_connecting_is_waited_for_only_until_its_first_attempt_fails()
    {
        // Its handshake fails after 300 ms: the calls then go on, long before the connect timeout.
        await using var slow = StandInSilo.Start();
        slow.OnHello = async _ =>
        {
            await Task.Delay(300);
            return StandInSilo.DropConnection;
        };
        await using var live = StandInSilo.Answering("live");
        var connectTimeout = TimeSpan.FromMinutes(1);

        using var asyncFirst = Create(connectTimeout, slow.Endpoint, live.Endpoint);
        Assert.Equal("live"u8.ToArray(), await asyncFirst.GetAsync("k").AsTask().WaitAsync(TestDeadlines.Call));

        using var syncFirst = Create(connectTimeout, slow.Endpoint, live.Endpoint);
        var cache = new CubbyDistributedCache(syncFirst);
        Assert.Equal("live"u8.ToArray(), await Task.Run(() => cache.Get("k")).WaitAsync(TestDeadlines.Call));

        // Both clients tried the slow endpoint first (its connections keep trying in the background since).
        Assert.True(slow.Commands.Count(c => c.StartsWith("HELLO", StringComparison.Ordinal)) >= 2);
    }

    [Fact]
    public async Task Calls_move_to_the_next_endpoint_when_the_first_goes_down_and_back_once_it_returns()
    {
        var first = StandInSilo.Answering("first");
        var firstPort = first.Port;
        await using var second = StandInSilo.Answering("second");
        using var client = Create(first.Endpoint, second.Endpoint);
        var cache = new CubbyDistributedCache(client);
        Assert.Equal("first"u8.ToArray(), await client.GetAsync("k"));

        // Whether or not the client has seen the connection close yet, no call fails: a read is sent again.
        await first.DisposeAsync();
        Assert.Equal("second"u8.ToArray(), await client.GetAsync("k"));
        Assert.Equal("second"u8.ToArray(), cache.Get("k"));
        Assert.Equal("second"u8.ToArray(), await client.GetAsync("k"));

        // The connection to the first endpoint kept trying: once it is back, calls go there again.
        await using var back = StandInSilo.Answering("back", firstPort);
        await Poll.UntilAsync(async () => (await client.GetAsync("k"))!.SequenceEqual("back"u8.ToArray()), what: "calls going back to the first endpoint");
        Assert.Equal("back"u8.ToArray(), cache.Get("k"));
        Assert.Equal(2, client.Router.OpenConnections);
    }

    [Fact]
    public async Task When_every_endpoint_is_down_calls_fail_within_about_the_connect_timeout_naming_the_endpoints()
    {
        string[] dead = [$"127.0.0.1:{FreePorts.Next()}", $"127.0.0.1:{FreePorts.Next()}"];
        using var client = Create(TimeSpan.FromMilliseconds(500), dead);
        var cache = new CubbyDistributedCache(client);

        var clock = Stopwatch.StartNew();
        var asyncError = await Assert.ThrowsAsync<CubbyConnectionException>(() => client.GetAsync("k").AsTask().WaitAsync(TestDeadlines.Call));
        var syncError = Assert.Throws<CubbyConnectionException>(() => cache.Get("k"));
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(4), $"two calls took {clock.Elapsed} with a 500 ms connect timeout and a 5 s operation timeout");

        foreach (var error in new[] { asyncError, syncError })
        {
            Assert.Contains("Cubby:Client:Endpoints", error.Message, StringComparison.Ordinal);
            Assert.Contains(dead[0], error.Message, StringComparison.Ordinal);
            Assert.Contains(dead[1], error.Message, StringComparison.Ordinal);
        }
    }

    internal static CubbyClient Create(params string[] endpoints) => Create(TimeSpan.FromSeconds(5), endpoints);

    internal static CubbyClient Create(TimeSpan connectTimeout, params string[] endpoints) =>
        Create(connectTimeout, TimeSpan.FromSeconds(5), endpoints);

    internal static CubbyClient Create(TimeSpan connectTimeout, TimeSpan operationTimeout, params string[] endpoints)
    {
        var options = new CubbyClientOptions
        {
            ConnectTimeout = connectTimeout,
            OperationTimeout = operationTimeout,
            ReconnectMinDelay = TimeSpan.FromMilliseconds(10),
            ReconnectMaxDelay = TimeSpan.FromMilliseconds(100),
        };
        foreach (var endpoint in endpoints)
        {
            options.Endpoints.Add(endpoint);
        }

        return new CubbyClient(Options.Create(options));
    }
}
