using System.Text;
using Cubby.Client;
using Cubby.Client.Caching;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Client;

/// <summary>
/// The client's side of <c>cubby.view</c> pushes and of lost connections, against a <see cref="StandInSilo"/> (the
/// silo side of pushes is tested with the cluster): a newer pushed view moves keys to their new owner, older and
/// unknown pushes change nothing, a silo that left the view loses its connection, and a read whose connection drops
/// before its reply is sent again while a timed-out one is not.
/// </summary>
public sealed class ViewPushTests
{
    private static readonly byte[] FromStandIn = "*3\r\n$10\r\nstand-in-v\r\n:0\r\n:-1\r\n"u8.ToArray();

    [Fact]
    public async Task A_newer_view_pushed_moves_keys_to_their_new_owner_and_closes_the_connection_to_the_silo_that_left()
    {
        await using var standIn = StandInSilo.Start();
        standIn.OnCommand = command => Task.FromResult(command[0] == "CUBBY.GET" ? FromStandIn : ":0\r\n"u8.ToArray());
        await using var silo = await TestSilo.StartAsync();
        await using var monitor = await silo.ConnectAsync();
        await monitor.CallAsync("SET", "k", "silo-v");
        using var client = Create(standIn.Port, TimeSpan.FromSeconds(2));

        Assert.Equal("stand-in-v"u8.ToArray(), await client.GetAsync("k"));
        Assert.Equal(1, client.Router.View!.Version);

        // A push of another kind, then the new view followed at once by an older one: only the new view counts.
        await standIn.SendToAllAsync(
        [
            .. ">2\r\n$7\r\nmessage\r\n$5\r\nhello\r\n"u8,
            .. StandInSilo.ViewPush(StandInSilo.View(5, ("silo", silo.RespEndPoint.Port))),
            .. StandInSilo.ViewPush(StandInSilo.View(4, ("stand-in", standIn.Port))),
            .. StandInSilo.ViewPush(StandInSilo.View(5, ("stand-in", standIn.Port))),
        ]);

        await Poll.UntilAsync(async () => Encoding.UTF8.GetString(await client.GetAsync("k") ?? []) == "silo-v", what: "reads going to the silo the push named");
        Assert.Equal(5, client.Router.View!.Version);
        Assert.Equal(silo.RespEndPoint.Port, Assert.Single(client.Router.View.Silos).Port);
        Assert.Equal("silo-v"u8.ToArray(), new CubbyDistributedCache(client).Get("k"));

        // The stand-in left the view: once calls have had their time, the client closes its connection there.
        await Poll.UntilAsync(() => standIn.OpenConnections == 0, what: "the connection to the silo that left closed");
        Assert.Equal(1, client.Router.OpenConnections);
        Assert.Equal("silo-v"u8.ToArray(), await client.GetAsync("k"));
    }

    [Fact]
    public async Task A_read_whose_connection_drops_before_the_reply_is_sent_again_and_succeeds()
    {
        await using var standIn = StandInSilo.Start();
        var dropped = new HashSet<string>();
        standIn.OnCommand = command =>
        {
            lock (dropped)
            {
                // The first GET of each key is read, then the connection drops without a reply.
                return Task.FromResult(command[0] == "CUBBY.GET" && dropped.Add(command[1]) ? StandInSilo.DropConnection : FromStandIn);
            }
        };
        using var client = Create(standIn.Port, TimeSpan.FromSeconds(10));
        var cache = new CubbyDistributedCache(client);

        Assert.Equal("stand-in-v"u8.ToArray(), await client.GetAsync("async"));
        Assert.Equal("stand-in-v"u8.ToArray(), cache.Get("sync"));

        Assert.Equal(2, standIn.Commands.Count(c => c == "CUBBY.GET async"));
        Assert.Equal(2, standIn.Commands.Count(c => c == "CUBBY.GET sync"));
    }

    [Fact]
    public async Task A_read_that_timed_out_after_it_was_sent_is_not_sent_again()
    {
        await using var standIn = StandInSilo.Start();
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        standIn.OnCommand = async command =>
        {
            if (command[0] == "CUBBY.GET" && command[1] == "slow")
            {
                await release.Task;
            }

            return command[0] == "CUBBY.GET" ? FromStandIn : ":1\r\n"u8.ToArray();
        };
        using var client = Create(standIn.Port, TimeSpan.FromMilliseconds(300));
        Assert.True(await client.ExistsAsync("warm-up"));

        await Assert.ThrowsAsync<TimeoutException>(() => client.GetAsync("slow").AsTask().WaitAsync(TestDeadlines.Call));
        release.SetResult();

        // The late reply is discarded in order; the next call gets its own.
        Assert.True(await client.ExistsAsync("after"));
        Assert.Equal(1, standIn.Commands.Count(c => c == "CUBBY.GET slow"));
    }

    private static CubbyClient Create(int port, TimeSpan operationTimeout)
    {
        var options = new CubbyClientOptions
        {
            OperationTimeout = operationTimeout,
            ReconnectMinDelay = TimeSpan.FromMilliseconds(10),
            ReconnectMaxDelay = TimeSpan.FromMilliseconds(100),
        };
        options.Endpoints.Add($"127.0.0.1:{port}");
        return new CubbyClient(Options.Create(options));
    }
}
