using System.Buffers;
using System.Diagnostics;
using System.Text;
using Cubby.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;

namespace Cubby.Tests.Client;

/// <summary>
/// Cancellation before and after a command is sent, and timeouts; afterwards the shared connection must still hand each
/// caller its own reply (a cancelled or timed-out call keeps its place in the reply order).
/// </summary>
public sealed class CancellationAndTimeoutTests
{
    [Fact]
    public async Task An_already_cancelled_token_fails_every_async_call_before_anything_is_sent()
    {
        await using var harness = await ClientHarness.StartAsync();
        await harness.Client.PutAsync("existing", "kept"u8.ToArray());
        var client = harness.Client;
        var cache = harness.BufferCache;
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();
        var token = cancelled.Token;
        var factoryRuns = 0;

        var sent = await SiloProbe.CommandsSentByAsync(harness.Monitor, async () =>
        {
            List<Func<Task>> calls =
            [
                async () => await client.PutAsync("new", new byte[] { 1 }, null, token),
                async () => await client.PutAsync("existing", new byte[] { 1 }, null, token),
                async () => await client.GetAsync("existing", token),
                async () => await client.GetEntryAsync("existing", token),
                async () => await client.ExistsAsync("existing", token),
                async () => await client.RefreshAsync("existing", token),
                async () => await client.EvictAsync("existing", token),
                async () => await client.GetTimeToLiveAsync("existing", token),
                async () => await client.PutObjectAsync("new", 42, null, token),
                async () => await client.GetObjectAsync<int>("existing", token),
                async () => await client.GetOrCreateAsync("new", _ => { factoryRuns++; return ValueTask.FromResult(1); }, null, token),
                () => cache.GetAsync("existing", token),
                () => cache.SetAsync("new", [1], new DistributedCacheEntryOptions(), token),
                () => cache.RefreshAsync("existing", token),
                () => cache.RemoveAsync("existing", token),
                async () => await cache.TryGetAsync("existing", new ArrayBufferWriter<byte>(), token),
                async () => await cache.SetAsync("new", new ReadOnlySequence<byte>([1]), new DistributedCacheEntryOptions(), token),
            ];
            foreach (var call in calls)
            {
                await Assert.ThrowsAnyAsync<OperationCanceledException>(call);
            }
        });

        Assert.Equal(0, sent);
        Assert.Equal(0, factoryRuns);
        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "new"));
        Assert.Equal("kept"u8.ToArray(), (await SiloProbe.RawEntryAsync(harness.Monitor, "existing")).Value);
        Assert.Equal("kept"u8.ToArray(), await client.GetAsync("existing"));
    }

    [Fact]
    public async Task An_already_cancelled_token_on_a_client_that_has_not_connected_yet_stores_nothing()
    {
        await using var harness = await ClientHarness.StartAsync();
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await harness.Client.PutAsync("cold", new byte[] { 1 }, null, cancelled.Token));

        Assert.False(await SiloProbe.ExistsAsync(harness.Monitor, "cold"));
        await harness.Client.PutAsync("warm", new byte[] { 2 });
        Assert.Equal([2], await harness.Client.GetAsync("warm"));
        Assert.Null(await harness.Client.GetAsync("cold"));
    }

    [Fact]
    public async Task Cancelling_while_the_reply_is_pending_ends_the_wait_at_once_and_later_calls_get_their_own_replies()
    {
        await using var setup = await ProxiedClient.StartAsync(o => o.OperationTimeout = TimeSpan.FromMinutes(1));
        var client = setup.Client;
        for (var i = 0; i < 5; i++)
        {
            await client.PutAsync($"key:{i}", Value(i));
        }

        var hits = await SiloProbe.InfoAsync(setup.Monitor, "stats", "keyspace_hits");
        setup.Proxy.PauseReplies();
        using var cancelGet = new CancellationTokenSource();
        using var cancelPut = new CancellationTokenSource();
        var get = client.GetAsync("key:0", cancelGet.Token).AsTask();
        var put = client.PutAsync("put-while-held", "applied"u8.ToArray(), null, cancelPut.Token).AsTask();

        // Both commands have run on the silo; only their replies are held back.
        await Poll.UntilAsync(async () =>
            await SiloProbe.InfoAsync(setup.Monitor, "stats", "keyspace_hits") > hits && await SiloProbe.ExistsAsync(setup.Monitor, "put-while-held"));
        Assert.False(get.IsCompleted);
        Assert.False(put.IsCompleted);

        await cancelGet.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => get.WaitAsync(TestDeadlines.Call));
        Assert.False(put.IsCompleted);
        await cancelPut.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => put.WaitAsync(TestDeadlines.Call));

        // Calls made while the cancelled calls' replies are still held line up behind them.
        var queued = Enumerable.Range(1, 4).Select(i => client.GetAsync($"key:{i}").AsTask()).ToArray();
        setup.Proxy.ResumeReplies();

        var replies = await Task.WhenAll(queued).WaitAsync(TestDeadlines.Call);
        for (var i = 1; i <= 4; i++)
        {
            Assert.Equal(Value(i), replies[i - 1]);
        }

        await AssertInStepAsync(client, setup.Cache);
        Assert.Equal("applied"u8.ToArray(), await client.GetAsync("put-while-held"));
    }

    [Fact]
    public async Task Cancelling_right_after_a_call_starts_gives_either_outcome_and_never_someone_elses_reply()
    {
        await using var harness = await ClientHarness.StartAsync();
        var client = harness.Client;
        for (var i = 0; i < 20; i++)
        {
            await client.PutAsync($"key:{i}", Value(i));
        }

        var cancelled = 0;
        var answered = 0;
        var workers = Enumerable.Range(0, 8).Select(worker => Task.Run(async () =>
        {
            for (var round = 0; round < 150; round++)
            {
                var i = (worker * 7 + round) % 20;
                using var cts = new CancellationTokenSource();
                var call = client.GetAsync($"key:{i}", cts.Token);
                await cts.CancelAsync();
                try
                {
                    Assert.Equal(Value(i), await call);
                    Interlocked.Increment(ref answered);
                }
                catch (OperationCanceledException)
                {
                    Interlocked.Increment(ref cancelled);
                }

                var next = (i + 1) % 20;
                Assert.Equal(Value(next), await client.GetAsync($"key:{next}"));
            }
        })).ToArray();

        await Task.WhenAll(workers).WaitAsync(TestDeadlines.Phase);
        Assert.Equal(8 * 150, cancelled + answered);
        await AssertInStepAsync(client, harness.Cache);
    }

    [Fact]
    public async Task A_reply_that_does_not_arrive_in_time_fails_the_call_with_TimeoutException_and_later_calls_get_their_own_replies()
    {
        // Long enough that calls which should succeed do so on a loaded machine (the suite runs Orleans silos beside
        // this test on 2 cores; 1.5 s once ran out in CI), short enough to wait out.
        var timeout = TimeSpan.FromSeconds(3);
        await using var setup = await ProxiedClient.StartAsync(o => o.OperationTimeout = timeout);
        var client = setup.Client;
        for (var i = 0; i < 5; i++)
        {
            RespAssert.Ok(await setup.Monitor.CallAsync("SET", $"key:{i}", Value(i)));
        }

        Assert.Equal(Value(0), await client.GetAsync("key:0"));

        setup.Proxy.PauseReplies();
        var clock = Stopwatch.StartNew();
        var get = client.GetAsync("key:0").AsTask();
        var put = client.PutAsync("put-while-held", "applied"u8.ToArray()).AsTask();
        var syncGet = Task.Factory.StartNew(
            () => Assert.Throws<TimeoutException>(() => setup.Cache.Get("key:1")),
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);

        await Assert.ThrowsAsync<TimeoutException>(() => get.WaitAsync(TestDeadlines.Call));
        Assert.True(clock.Elapsed >= timeout - TimeSpan.FromMilliseconds(15), $"timed out after {clock.Elapsed}");
        await Assert.ThrowsAsync<TimeoutException>(() => put.WaitAsync(TestDeadlines.Call));
        var syncError = await syncGet.WaitAsync(TestDeadlines.Call);
        Assert.Contains("OperationTimeout", syncError.Message, StringComparison.Ordinal);

        setup.Proxy.ResumeReplies();
        await AssertInStepAsync(client, setup.Cache);
        Assert.True(await SiloProbe.ExistsAsync(setup.Monitor, "put-while-held"));
    }

    [Fact]
    public async Task A_tiny_operation_timeout_fails_a_large_read_and_the_connection_stays_in_step()
    {
        var timeout = TimeSpan.FromMilliseconds(1);
        await using var setup = await ProxiedClient.StartAsync(o => o.OperationTimeout = TimeSpan.FromMinutes(1));
        var large = new byte[8 * 1024 * 1024];
        new Random(5).NextBytes(large);
        await setup.Client.PutAsync("large", large);

        // A second client on the same silo with a 1 ms budget: the large reply cannot arrive in time while held.
        var options = new CubbyClientOptions { OperationTimeout = timeout };
        options.Endpoints.Add($"127.0.0.1:{setup.Proxy.EndPoint.Port}");
        using var hasty = new CubbyClient(Microsoft.Extensions.Options.Options.Create(options));
        await Poll.UntilAsync(async () =>
        {
            try
            {
                return await hasty.ExistsAsync("large");
            }
            catch (Exception exception) when (exception is TimeoutException or CubbyConnectionException)
            {
                // With a 1 ms budget any call may time out, connecting included.
                return false;
            }
        });

        setup.Proxy.PauseReplies();
        var read = hasty.GetAsync("large").AsTask();
        await Assert.ThrowsAsync<TimeoutException>(() => read.WaitAsync(TestDeadlines.Call));
        setup.Proxy.ResumeReplies();

        await Poll.UntilAsync(async () =>
        {
            try
            {
                return await hasty.ExistsAsync("large") && !await hasty.ExistsAsync("nothing");
            }
            catch (Exception exception) when (exception is TimeoutException or CubbyConnectionException)
            {
                // With a 1 ms budget any call may time out.
                return false;
            }
        });
        Assert.Equal(large, await setup.Client.GetAsync("large"));
    }

    private static byte[] Value(int i) => Encoding.UTF8.GetBytes($"value {i} " + new string('v', i * 13));

    /// <summary>Several calls of different shapes in a row, each checked against its own expected reply.</summary>
    private static async Task AssertInStepAsync(ICubbyClient client, IDistributedCache cache)
    {
        for (var i = 0; i < 5; i++)
        {
            Assert.Equal(Value(i), await client.GetAsync($"key:{i}").AsTask().WaitAsync(TestDeadlines.Call));
        }

        Assert.Equal(WriteOutcome.Created, await client.PutAsync("in-step", "x"u8.ToArray()));
        Assert.True(await client.ExistsAsync("in-step"));
        Assert.Equal(Timeout.InfiniteTimeSpan, await client.GetTimeToLiveAsync("in-step"));
        Assert.Null(await client.GetAsync("in-step-missing"));
        Assert.Equal(Value(3), cache.Get("key:3"));
        Assert.Equal(RemoveOutcome.Removed, await client.EvictAsync("in-step"));
        var concurrent = await Task.WhenAll(Enumerable.Range(0, 5).Select(i => client.GetAsync($"key:{i}").AsTask()));
        for (var i = 0; i < 5; i++)
        {
            Assert.Equal(Value(i), concurrent[i]);
        }
    }
}
