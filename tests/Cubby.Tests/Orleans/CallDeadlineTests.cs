using System.Text;
using Cubby.Client.Shards;
using Cubby.Sharding;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Runtime;

namespace Cubby.Tests.Orleans;

/// <summary>
/// A write that reaches its shard after its caller's deadline is not run, whether it came as a single grain call or in a
/// batch; one within its deadline is, and the deadline does not stay with the caller's later calls.
/// </summary>
public sealed class CallDeadlineTests
{
    private static readonly ShardMap Shards = new();

    [Fact]
    public async Task A_single_call_that_reaches_its_shard_after_its_deadline_is_refused_and_writes_nothing()
    {
        await using var cluster = await ShardCluster.StartAsync(1);
        var key = Utf8("deadline:single");
        var shard = cluster.Grains.GetGrain<IShardGrain>(Shards.SlotOf(key));

        var late = await Assert.ThrowsAsync<CallDeadlineException>(async () =>
            await CallDeadline.Carrying(CallDeadline.After(TimeSpan.FromSeconds(-1)), shard, s => s.Set(key, Utf8("late"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always)));
        Assert.Contains("after its caller's deadline", late.Message, StringComparison.Ordinal);
        Assert.Null(await shard.Get(key, slide: false));

        Assert.Equal(
            WriteOutcome.Created,
            await CallDeadline.Carrying(CallDeadline.After(TimeSpan.FromSeconds(30)), shard, s => s.Set(key, Utf8("in time"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always)));
        Assert.Null(RequestContext.Get(CallDeadline.ContextKey));
        Assert.Equal("in time", Encoding.UTF8.GetString((await shard.Get(key, slide: false))!.Value));
    }

    [Fact]
    public async Task A_batch_past_its_write_deadline_runs_its_reads_and_none_of_its_writes()
    {
        await using var cluster = await ShardCluster.StartAsync(1);
        var silo = cluster.Cluster.GetActiveSilos().Single();
        var gateway = silo.ServiceProvider.GetRequiredService<ILocalSiloDetails>().GatewayAddress;
        var service = SiloBatches.ServiceAt(cluster.Cluster.Client, gateway);
        var (written, read) = (Utf8("deadline:batch:written"), Utf8("deadline:batch:read"));
        var slots = (Written: Shards.SlotOf(written), Read: Shards.SlotOf(read));
        // Through their grains first, which opens both shards on the silo the batches go to.
        await cluster.Grains.GetGrain<IShardGrain>(slots.Read).Set(read, Utf8("there"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);
        Assert.Null(await cluster.Grains.GetGrain<IShardGrain>(slots.Written).Get(written, slide: false));

        var results = await service.Run(
            [
                ShardOperation.Set(slots.Written, written, Utf8("late"), default, CacheEntryFlags.None, ShardWriteCondition.Always),
                ShardOperation.Get(slots.Read, read, slide: false),
                ShardOperation.Remove(slots.Read, read),
            ],
            CallDeadline.After(TimeSpan.FromSeconds(-1)));

        Assert.Equal([ShardOperationStatus.Failed, ShardOperationStatus.Done, ShardOperationStatus.Failed], results.Select(static result => result.Status));
        Assert.Equal("there", Encoding.UTF8.GetString(results[1].Entry!.Value));
        var after = await service.Run([ShardOperation.Get(slots.Written, written, slide: false), ShardOperation.Get(slots.Read, read, slide: false)], CallDeadline.None);
        Assert.Null(after[0].Entry);
        Assert.NotNull(after[1].Entry);
    }

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);
}
