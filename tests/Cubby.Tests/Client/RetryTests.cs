using Cubby.Client;
using Cubby.Client.Caching;

namespace Cubby.Tests.Client;

/// <summary>
/// When a call is sent again, against <see cref="StandInSilo"/>s: a read whose connection drops before its reply goes
/// to the next endpoint, or, with a single endpoint, to the same one once it has reconnected; a read that timed out
/// and an error reply are never sent again; pushes between replies are skipped.
/// </summary>
public sealed class RetryTests
{
    [Fact]
    public async Task A_read_whose_connection_drops_before_its_reply_is_sent_again_to_the_next_endpoint()
    {
        await using var first = StandInSilo.Start();
        first.OnCommand = command => Task.FromResult(command[0] == "CUBBY.GET" ? StandInSilo.DropConnection : ":1\r\n"u8.ToArray());
        await using var second = StandInSilo.Answering("second");
        using var client = SeedRoutingTests.Create(first.Endpoint, second.Endpoint);
        var cache = new CubbyDistributedCache(client);
        Assert.True(await client.ExistsAsync("warm-up"));

        Assert.Equal("second"u8.ToArray(), await client.GetAsync("async"));

        // Once the first endpoint has reconnected, calls go there again, and so does the synchronous read.
        await Poll.UntilAsync(
            async () => await client.ExistsAsync("probe") && first.Received("EXISTS probe") > 0,
            what: "calls going back to the first endpoint");
        Assert.Equal("second"u8.ToArray(), cache.Get("sync"));

        Assert.Equal(1, first.Received("CUBBY.GET async"));
        Assert.Equal(1, second.Received("CUBBY.GET async"));
        Assert.Equal(1, first.Received("CUBBY.GET sync"));
        Assert.Equal(1, second.Received("CUBBY.GET sync"));
    }

    [Fact]
    public async Task With_one_endpoint_a_read_whose_connection_drops_before_its_reply_is_sent_again_once_it_reconnects()
    {
        await using var standIn = StandInSilo.Start();
        var dropped = new HashSet<string>();
        standIn.OnCommand = command =>
        {
            lock (dropped)
            {
                // The first GET of each key is read, then the connection drops without a reply.
                return Task.FromResult(command[0] == "CUBBY.GET" && dropped.Add(command[1]) ? StandInSilo.DropConnection : StandInSilo.Entry("stand-in-v"));
            }
        };
        using var client = SeedRoutingTests.Create(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(10), standIn.Endpoint);
        var cache = new CubbyDistributedCache(client);

        Assert.Equal("stand-in-v"u8.ToArray(), await client.GetAsync("async"));
        Assert.Equal("stand-in-v"u8.ToArray(), cache.Get("sync"));

        Assert.Equal(2, standIn.Received("CUBBY.GET async"));
        Assert.Equal(2, standIn.Received("CUBBY.GET sync"));
    }

    [Fact]
    public async Task A_read_that_timed_out_after_it_was_sent_is_not_sent_again_anywhere()
    {
        await using var first = StandInSilo.Start();
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        first.OnCommand = async command =>
        {
            if (command[0] == "CUBBY.GET" && command[1] == "slow")
            {
                await release.Task;
            }

            return command[0] == "CUBBY.GET" ? StandInSilo.Entry("first") : ":1\r\n"u8.ToArray();
        };
        await using var second = StandInSilo.Answering("second");
        using var client = SeedRoutingTests.Create(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(1), first.Endpoint, second.Endpoint);
        Assert.True(await client.ExistsAsync("warm-up"));

        await Assert.ThrowsAsync<TimeoutException>(() => client.GetAsync("slow").AsTask().WaitAsync(TestDeadlines.Call));
        release.SetResult();

        // The late reply is discarded in order; the next call gets its own.
        Assert.True(await client.ExistsAsync("after"));
        Assert.Equal("first"u8.ToArray(), await client.GetAsync("next"));
        Assert.Equal(1, first.Received("CUBBY.GET slow"));
        Assert.Empty(second.Commands);
    }

    [Fact]
    public async Task An_error_reply_is_not_sent_again()
    {
        await using var first = StandInSilo.Start();
        first.OnCommand = _ => Task.FromResult("-ERR boom\r\n"u8.ToArray());
        await using var second = StandInSilo.Answering("second");
        using var client = SeedRoutingTests.Create(first.Endpoint, second.Endpoint);

        var error = await Assert.ThrowsAsync<CubbyServerException>(() => client.GetAsync("k").AsTask().WaitAsync(TestDeadlines.Call));
        Assert.Equal("ERR boom", error.Message);
        Assert.Throws<CubbyServerException>(() => new CubbyDistributedCache(client).Get("k"));

        Assert.Equal(2, first.Received("CUBBY.GET k"));
        Assert.Empty(second.Commands);
    }

    [Fact]
    public async Task Pushes_between_replies_are_skipped_and_every_call_keeps_its_own_reply()
    {
        await using var standIn = StandInSilo.Start();
        standIn.OnCommand = command => Task.FromResult<byte[]>(command[0] == "CUBBY.GET"
            ?
            [
                .. ">2\r\n$7\r\nmessage\r\n$5\r\nhello\r\n"u8,

                // The cluster view pushes silos sent before Orleans: the client no longer reads them.
                .. ">2\r\n$10\r\ncubby.view\r\n*3\r\n:5\r\n:1024\r\n*0\r\n"u8,
                .. StandInSilo.Entry(command[1]),
            ]
            : ":1\r\n"u8.ToArray());
        using var client = SeedRoutingTests.Create(standIn.Endpoint);
        var cache = new CubbyDistributedCache(client);

        var reads = await Task.WhenAll(Enumerable.Range(0, 20).Select(i => client.GetAsync($"key:{i}").AsTask()));
        for (var i = 0; i < reads.Length; i++)
        {
            Assert.Equal(System.Text.Encoding.UTF8.GetBytes($"key:{i}"), reads[i]);
        }

        Assert.Equal("sync"u8.ToArray(), cache.Get("sync"));
        Assert.True(await client.ExistsAsync("k"));
    }
}
