using System.Buffers;
using System.Diagnostics;
using System.Text;
using Cubby.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Time.Testing;

namespace Cubby.Tests.Client;

/// <summary>
/// Cancellation before and after a call is sent, and timeouts, with a shard that holds calls about one key unanswered;
/// afterwards every other call still gets its own answer.
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

        var sent = await harness.Silo.ShardCalls.CallsDuringAsync(async () =>
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
    public async Task Cancelling_a_call_its_shard_has_not_answered_ends_the_wait_at_once_sends_nothing_more_and_other_calls_go_on()
    {
        var operationTimeout = TimeSpan.FromMinutes(1);
        await using var harness = await ClientHarness.StartAsync(configure: o => o.OperationTimeout = operationTimeout);
        var client = harness.Client;
        await WriteKeysAsync(client);
        using var hold = harness.Silo.ShardCalls.Hold(HeldKey);
        var callsBefore = harness.Silo.ShardCalls.Calls;
        using var cancelPut = new CancellationTokenSource();
        var put = client.PutAsync(HeldKey, "applied"u8.ToArray(), null, cancelPut.Token).AsTask();

        // The put has reached its shard in a batch, which the silo holds unanswered.
        await Poll.UntilAsync(() => harness.Silo.ShardCalls.Calls > callsBefore, what: "the put to reach its shard");
        Assert.False(put.IsCompleted);

        await cancelPut.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => put.WaitAsync(TestDeadlines.Call));
        await AssertInStepAsync(client, harness.Cache);

        // Cancelling stopped the wait and every attempt not yet sent: the batch goes unanswered past its response
        // timeout, and no single call of the put follows it, which could land after the caller had moved on.
        var batcher = Assert.Single(Assert.IsType<CubbyClient>(client).Batches!.Batchers);
        // It fails at its response timeout at the latest, half the operation timeout after it was sent. Counted, not
        // seen as the gateway's second out of service after a failure, which a busy machine's polling can miss.
        await Poll.UntilAsync(
            () => batcher.BatchesFailed > 0,
            (operationTimeout / 2) + TestDeadlines.Phase,
            "the held batch to go unanswered",
            () => $"batches sent {batcher.BatchesSent}, failed {batcher.BatchesFailed}, operations sent {batcher.OperationsSent}; held calls arrived {hold.Arrived}; shard calls {harness.Silo.ShardCalls.Calls - callsBefore} since the put, of them Set {harness.Silo.ShardCalls.CallsOf("Set")}");
        Assert.Equal(1, hold.Arrived);
        hold.Dispose();
        await AssertInStepAsync(client, harness.Cache);
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
    public async Task A_call_without_an_answer_in_time_fails_with_TimeoutException_naming_the_key_and_setting_and_other_calls_go_on()
    {
        // A hasty app with a short budget meets the held key; the harness's own client, with a budget a loaded machine
        // never runs out of (the suite runs Orleans silos beside this test on 2 cores), checks that other calls go on.
        var timeout = TimeSpan.FromSeconds(3);
        await using var harness = await ClientHarness.StartAsync(configure: o => o.OperationTimeout = TestDeadlines.Call);
        await using var hastyApp = ClientHarness.GatewayApp(harness.Silo, configure: o => o.OperationTimeout = timeout);
        var hasty = hastyApp.GetRequiredService<ICubbyClient>();
        var hastyCache = hastyApp.GetRequiredService<IDistributedCache>();
        await WriteKeysAsync(harness.Client);
        Assert.Equal(Value(0), await hasty.GetAsync("key:0"));
        using (harness.Silo.ShardCalls.Hold(HeldKey))
        {
            var clock = Stopwatch.StartNew();
            var get = hasty.GetAsync(HeldKey).AsTask();
            var put = hasty.PutAsync(HeldKey, "applied"u8.ToArray()).AsTask();
            var syncGet = Task.Factory.StartNew(
                () => Assert.Throws<TimeoutException>(() => hastyCache.Get(HeldKey)),
                CancellationToken.None,
                TaskCreationOptions.LongRunning,
                TaskScheduler.Default);

            var error = await Assert.ThrowsAsync<TimeoutException>(() => get.WaitAsync(TestDeadlines.Phase));
            Assert.True(clock.Elapsed >= timeout - TimeSpan.FromMilliseconds(15), $"timed out after {clock.Elapsed}");
            Assert.Contains($"'{HeldKey}'", error.Message, StringComparison.Ordinal);
            Assert.Contains("Cubby:Client:OperationTimeout", error.Message, StringComparison.Ordinal);
            await Assert.ThrowsAsync<TimeoutException>(() => put.WaitAsync(TestDeadlines.Phase));
            var syncError = await syncGet.WaitAsync(TestDeadlines.Phase);
            Assert.Contains("Cubby:Client:OperationTimeout", syncError.Message, StringComparison.Ordinal);
            await AssertInStepAsync(harness.Client, harness.Cache);
        }

        // Once its shard answers again, the key serves calls as before, the hasty client's included. A timeout ends
        // only the caller's wait: the held put (and its second try) may still run once the shard is free, after any
        // write made here, so each look writes the value again before reading it.
        await Poll.UntilAsync(async () =>
        {
            try
            {
                await harness.Client.PutAsync(HeldKey, "later"u8.ToArray());
                return (await hasty.GetAsync(HeldKey))?.SequenceEqual("later"u8.ToArray()) == true;
            }
            catch (TimeoutException)
            {
                return false;
            }
        }, TestDeadlines.Phase, "the hasty client to read the key again");
    }

    [Fact]
    public async Task A_try_unanswered_for_half_the_budget_is_sent_again_and_the_call_succeeds_with_its_answer()
    {
        // Orleans may lose a request with a silo that is stopping; the client cannot tell a lost try from a slow one,
        // so after half its budget it sends the call again, and the first try, if it never ran, is dropped unrun.
        var budget = TimeSpan.FromSeconds(10);
        await using var harness = await ClientHarness.StartAsync(configure: o => o.OperationTimeout = TestDeadlines.Call);
        await using var app = ClientHarness.GatewayApp(harness.Silo, configure: o => o.OperationTimeout = budget);
        var client = app.GetRequiredService<ICubbyClient>();
        await client.PutAsync(HeldKey, "kept"u8.ToArray());

        Task<byte[]?> get;
        ShardCallCounter.HeldKey held;
        using (held = harness.Silo.ShardCalls.Hold(HeldKey))
        {
            get = client.GetAsync(HeldKey).AsTask();

            // Held past the first try's timeout: no answer meanwhile, and the client has sent the call again.
            var heldFor = (budget / 2) + TimeSpan.FromSeconds(1);
            Assert.NotSame(get, await Task.WhenAny(get, Task.Delay(heldFor)));
        }

        Assert.Equal("kept"u8.ToArray(), await get.WaitAsync(TestDeadlines.Phase));
        Assert.Equal(2, held.Arrived);
    }

    [Fact]
    public async Task A_call_times_out_on_real_time_when_the_app_registers_a_fake_clock()
    {
        // The app's TimeProvider is Cubby's entry clock; Orleans' request timeouts must not wait for it to move.
        var time = new FakeTimeProvider();
        await using var harness = await ClientHarness.StartAsync(time: time, configure: o => o.OperationTimeout = TimeSpan.FromSeconds(2));
        await harness.Client.PutAsync(HeldKey, "kept"u8.ToArray());
        using (harness.Silo.ShardCalls.Hold(HeldKey))
        {
            var error = await Assert.ThrowsAsync<TimeoutException>(() => harness.Client.GetAsync(HeldKey).AsTask().WaitAsync(TestDeadlines.Phase));
            Assert.Contains("Cubby:Client:OperationTimeout", error.Message, StringComparison.Ordinal);
        }
    }

    // A key whose shard none of the other keys here share, so holding it holds nothing else.
    private const string HeldKey = "held";

    private static async Task WriteKeysAsync(ICubbyClient client)
    {
        var shards = new Cubby.Sharding.ShardMap();
        string[] others = [.. Enumerable.Range(0, 5).Select(i => $"key:{i}"), "in-step", "in-step-missing"];
        Assert.DoesNotContain(shards.SlotOf(HeldKey), others.Select(shards.SlotOf));
        for (var i = 0; i < 5; i++)
        {
            await client.PutAsync($"key:{i}", Value(i));
        }
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
