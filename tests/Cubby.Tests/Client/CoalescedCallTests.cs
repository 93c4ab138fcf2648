using System.Text;
using Cubby.Client;
using Cubby.Client.Shards;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary>
/// Reads and writes of a gateway client coalesced into batches per silo (<c>Cubby:Client:CoalesceCalls</c>): concurrent
/// calls share messages straight to the gateway of their shards' silo and answer as single calls do, and calls whose
/// shard moves away meanwhile still land, through the shard's grain.
/// </summary>
public sealed class CoalescedCallTests
{
    private const int Callers = 32;

    [Fact]
    public async Task Concurrent_reads_and_writes_share_batches_and_answer_as_single_calls()
    {
        await using var harness = await ClientHarness.StartAsync();
        await harness.WarmUpAsync();
        var batches = await LearnedMapAsync(harness);

        await RunCallersAsync(harness.Client, rounds: 30, prefix: "together");

        var operations = batches.Batchers.Sum(static batcher => batcher.OperationsSent);
        var sent = batches.Batchers.Sum(static batcher => batcher.BatchesSent);
        Assert.True(operations >= Callers * 30 * 2, $"only {operations} of {Callers * 30 * 2} operations went in batches");
        Assert.True(operations > sent, $"{operations} operations in {sent} batches: concurrent calls did not share messages");

        // A lone gateway takes two batches at a time, so one travels while the silo runs the other.
        Assert.Equal(GatewayBatcher.LoneGatewayInFlight, Assert.Single(batches.Batchers).MaxInFlight);

        // What the batches wrote is what a plain RESP client reads.
        RespAssert.Bulk("together:0:29", await harness.Monitor.CallAsync("GET", "together:0"));
    }

    [Fact]
    public async Task The_batch_forms_refresh_evict_exists_and_time_to_live_travel_in_batches_too()
    {
        await using var harness = await ClientHarness.StartAsync();
        await harness.WarmUpAsync();
        var batches = await LearnedMapAsync(harness);
        var client = harness.Client;
        var keys = Enumerable.Range(0, 100).Select(static i => $"many:{i}").ToArray();
        var values = keys.Select(static key => Encoding.UTF8.GetBytes(key)).ToArray();
        var before = batches.Batchers.Sum(static batcher => batcher.OperationsSent);

        Assert.All(
            await client.PutManyAsync([.. keys.Zip(values, static (key, value) => KeyValuePair.Create(key, (ReadOnlyMemory<byte>)value))], CacheEntryOptions.Sliding(TimeSpan.FromMinutes(5))),
            static outcome => Assert.Equal(WriteOutcome.Created, outcome));
        var read = await client.GetManyAsync([.. keys, "many:absent"]);
        Assert.Equal(values, read[..100]);
        Assert.Null(read[100]);
        Assert.True(await client.RefreshAsync(keys[0]));
        Assert.False(await client.RefreshAsync("many:absent"));
        Assert.True(await client.ExistsAsync(keys[0]));
        Assert.False(await client.ExistsAsync("many:absent"));
        Assert.InRange(await client.GetTimeToLiveAsync(keys[0]) ?? TimeSpan.Zero, TimeSpan.FromMinutes(4), TimeSpan.FromMinutes(5));
        Assert.Equal(RemoveOutcome.Removed, await client.EvictAsync(keys[0]));
        Assert.Equal(RemoveOutcome.NotFound, await client.EvictAsync(keys[0]));
        Assert.Equal(99, await client.EvictManyAsync(keys));
        RespAssert.Integer(0, await harness.Monitor.CallAsync("EXISTS", keys[1]));

        var sent = batches.Batchers.Sum(static batcher => batcher.OperationsSent) - before;
        Assert.True(sent >= (3 * keys.Length) + 8, $"only {sent} operations went in batches");
    }

    [Fact]
    public async Task Callers_that_go_on_to_synchronous_calls_after_awaited_ones_hold_up_no_batch()
    {
        await using var harness = await ClientHarness.StartAsync();
        await harness.WarmUpAsync();
        await LearnedMapAsync(harness);

        // Off any synchronization context, each caller blocks in a synchronous call right after an awaited one, as an app
        // mixing IDistributedCache's two forms does. Had an awaited call resumed on the thread that answers its batch and
        // sends the next, two such callers would hold both batches in flight and wait for batches nobody could send.
        var callers = Enumerable.Range(0, Callers).Select(caller => Task.Run(async () =>
        {
            var key = $"mixed:{caller}";
            for (var round = 0; round < 20; round++)
            {
                var value = Encoding.UTF8.GetBytes($"{key}:{round}");
                await harness.Client.PutAsync(key, value);
                Assert.Equal(value, harness.Cache.Get(key));
                harness.Cache.Set(key, value, new());
                Assert.Equal(value, await harness.Client.GetAsync(key));
            }
        }));

        await Task.WhenAll(callers).WaitAsync(TestDeadlines.Phase);
    }

    [Fact]
    public async Task With_coalescing_off_every_call_goes_to_its_grain()
    {
        await using var harness = await ClientHarness.StartAsync(configure: static o => o.CoalesceCalls = false);
        Assert.Null(Assert.IsType<CubbyClient>(harness.Client).Batches);
        await RunCallersAsync(harness.Client, rounds: 5, prefix: "alone");
    }

    [Fact]
    public async Task Calls_whose_shards_move_to_a_joining_silo_and_back_all_land()
    {
        await using var cluster = await TestCluster.StartAsync(1);
        await using var app = ClientHarness.GatewayApp(cluster.Primary);
        var client = app.GetRequiredService<ICubbyClient>();

        using var stop = new CancellationTokenSource();
        var load = Task.Run(() => RunUntilStoppedAsync(client, stop.Token));

        // A silo joins and takes its share of the shards (they migrate with their entries), then leaves gracefully and
        // hands them back: batches sent meanwhile find shards gone and their calls go to the shards' grains.
        var joiner = await cluster.AddSiloAsync();
        await cluster.WaitForActiveSilosAsync(2);
        await Poll.UntilAsync(
            () => Task.FromResult(joiner.Services.GetRequiredService<Cubby.Grains.ShardCatalog>().ActiveShards() > 0),
            TimeSpan.FromSeconds(60),
            "shards to move to the joining silo");
        await cluster.StopAsync(joiner);
        await stop.CancelAsync();
        var (calls, wrong) = await load;

        Assert.True(calls > 0, "the callers made no call");
        Assert.Equal(0, wrong);
    }

    /// <summary>The client's batches, once it has learned which gateway holds the shards (a write went in a batch).</summary>
    private static async Task<Cubby.Client.Shards.SiloBatches> LearnedMapAsync(ClientHarness harness)
    {
        var batches = Assert.IsType<CubbyClient>(harness.Client).Batches;
        Assert.NotNull(batches);
        await Poll.UntilAsync(async () =>
        {
            await harness.Client.PutAsync("map:probe", "v"u8.ToArray());
            return batches.Batchers.Sum(static batcher => batcher.OperationsSent) > 0;
        }, TestDeadlines.Call, "the client to learn which gateway holds the shards");
        return batches;
    }

    /// <summary>Each caller writes its key and reads it back, round after round: every read must see its own last write.</summary>
    private static async Task RunCallersAsync(ICubbyClient client, int rounds, string prefix)
    {
        await Task.WhenAll(Enumerable.Range(0, Callers).Select(caller => Task.Run(async () =>
        {
            var key = $"{prefix}:{caller}";
            for (var round = 0; round < rounds; round++)
            {
                var value = Encoding.UTF8.GetBytes($"{key}:{round}");
                Assert.Equal(round == 0 ? WriteOutcome.Created : WriteOutcome.Updated, await client.PutAsync(key, value));
                Assert.Equal(value, await client.GetAsync(key));
            }
        }))).WaitAsync(TimeSpan.FromMinutes(2));
    }

    /// <summary>Writes and reads back keys over many shards until stopped; counts the calls and the reads that saw something else.</summary>
    private static async Task<(long Calls, long Wrong)> RunUntilStoppedAsync(ICubbyClient client, CancellationToken stop)
    {
        long calls = 0, wrong = 0;
        await Task.WhenAll(Enumerable.Range(0, Callers).Select(caller => Task.Run(async () =>
        {
            for (var round = 0; !stop.IsCancellationRequested; round++)
            {
                var key = $"moving:{caller}:{round % 50}";
                var value = Encoding.UTF8.GetBytes($"{caller}:{round}");
                await client.PutAsync(key, value);
                var read = await client.GetAsync(key);
                if (read is null || !value.AsSpan().SequenceEqual(read))
                {
                    Interlocked.Increment(ref wrong);
                }

                Interlocked.Add(ref calls, 2);
            }
        })));
        return (calls, wrong);
    }
}
