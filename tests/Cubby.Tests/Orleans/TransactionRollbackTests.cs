using System.Globalization;
using System.Text;
using Cubby.Grains;
using Cubby.Grains.Placement;
using Cubby.Sharding;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Runtime;

namespace Cubby.Tests.Orleans;

/// <summary>
/// A transaction that cannot run whole is rolled back on every shard it held: a command that cannot reach its shard
/// (held past the call timeout here, as a partition would) makes EXEC answer an error, and the keys its other commands
/// changed, on this silo and on another, read as before. A held shard whose chain broke asks the silo running the
/// transaction whether to keep what it ran.
/// </summary>
public sealed class TransactionRollbackTests
{
    private static readonly TimeSpan CallTimeout = TimeSpan.FromSeconds(1);
    private static readonly ShardMap Shards = new();

    [Fact]
    public async Task A_command_that_cannot_reach_its_shard_rolls_back_the_transaction_on_every_shard()
    {
        await using var cluster = await TestCluster.StartAsync(2, options => options.Clustering.CallTimeout = CallTimeout);
        var local = KeysHomedOn(cluster.Primary, 2);
        var remote = KeysHomedOn(cluster.Silos[1], 2);
        await using var client = await cluster.Primary.ConnectAsync();
        RespAssert.Ok(await client.CallAsync("SET", local[0], "before"));
        RespAssert.Ok(await client.CallAsync("SET", remote[0], "before"));
        RespAssert.Ok(await client.CallAsync("SET", remote[1], "10"));
        RespAssert.Integer(1, await client.CallAsync("EXPIRE", remote[1], "3600"));
        await Poll.UntilAsync(() => Task.FromResult(IsOpenOn(cluster.Primary, local[0]) && IsOpenOn(cluster.Silos[1], remote[0]) && IsOpenOn(cluster.Silos[1], remote[1])), TimeSpan.FromSeconds(30), "the shards to be at their homes");

        // The last command's shard is on the other silo and holds it past the call timeout; the others ran by then.
        using (var hold = cluster.Silos[1].ShardCalls.Hold(remote[0]))
        {
            RespAssert.Ok(await client.CallAsync("MULTI"));
            RespAssert.SimpleString("QUEUED", await client.CallAsync("SET", local[0], "during"));
            RespAssert.SimpleString("QUEUED", await client.CallAsync("SET", local[1], "created"));
            RespAssert.SimpleString("QUEUED", await client.CallAsync("INCRBY", remote[1], "5"));
            RespAssert.SimpleString("QUEUED", await client.CallAsync("SET", remote[0], "during"));
            RespAssert.Error("TRYAGAIN", await client.CallAsync("EXEC"));
            Assert.Equal(1, hold.Arrived);
        }

        // Let through past its deadline, the held command is refused; nothing the transaction ran is kept. (Read on a new
        // connection: one whose last command ran longer than the call timeout may judge the next one late.)
        await using var reader = await cluster.Primary.ConnectAsync();
        RespAssert.Bulk("before", await reader.CallAsync("GET", local[0]));
        RespAssert.Null(await reader.CallAsync("GET", local[1]));
        RespAssert.Bulk("10", await reader.CallAsync("GET", remote[1]));
        Assert.InRange((await reader.CallAsync("TTL", remote[1])).Integer, 3000, 3600);
        RespAssert.Bulk("before", await reader.CallAsync("GET", remote[0]));

        // The same transaction with nothing held runs whole.
        RespAssert.Ok(await reader.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await reader.CallAsync("SET", local[0], "after"));
        RespAssert.SimpleString("QUEUED", await reader.CallAsync("INCRBY", remote[1], "5"));
        Assert.Equal(["OK", "15"], RespAssert.Strings(await reader.CallAsync("EXEC")));
        RespAssert.Bulk("after", await reader.CallAsync("GET", local[0]));
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task A_shard_whose_chain_broke_keeps_or_rolls_back_what_the_transaction_ran_as_its_coordinator_says(bool committed)
    {
        await using var cluster = await TestCluster.StartAsync(1);
        var grains = cluster.Primary.Services.GetRequiredService<IGrainFactory>();
        var key = KeysHomedOn(cluster.Primary, 1)[0];
        var bytes = Encoding.UTF8.GetBytes(key);
        var slot = Shards.SlotOf(bytes);
        var shard = grains.GetGrain<IShardGrain>(slot);
        await shard.Set(bytes, Encoding.UTF8.GetBytes("before"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);

        // The callback writes in the chain, then fails, as a call across a partition would; the shard then asks it.
        var callback = new BreakingCallback(grains, bytes, committed);
        var reference = grains.CreateObjectReference<ITransactionCallback>(callback);
        RequestContext.ReentrancyId = Guid.NewGuid();
        HoldEnd end;
        try
        {
            end = await shard.Hold([slot], [[bytes]], 0, reference);
        }
        finally
        {
            RequestContext.ReentrancyId = Guid.Empty;
            grains.DeleteObjectReference<ITransactionCallback>(reference);
        }

        Assert.Equal(HoldEnd.Broken | (committed ? HoldEnd.Committed : HoldEnd.RolledBack), end);
        Assert.Equal(1, callback.Asked);
        var entry = await shard.Get(bytes, slide: false);
        Assert.Equal(committed ? "during" : "before", Encoding.UTF8.GetString(entry!.Value));
    }

    private static string[] KeysHomedOn(TestSilo silo, int count)
    {
        var homes = silo.Services.GetRequiredService<ShardHomes>();
        return [.. Enumerable.Range(0, 10_000)
            .Select(static i => "rollback:" + i.ToString(CultureInfo.InvariantCulture))
            .Where(key => homes.HomeOf(Shards.SlotOf(Encoding.UTF8.GetBytes(key))).Equals(homes.Self))
            .Take(count)];
    }

    private static bool IsOpenOn(TestSilo silo, string key) =>
        silo.Services.GetRequiredService<ShardCatalog>().Find(Shards.SlotOf(Encoding.UTF8.GetBytes(key))) is { IsOpen: true };

    private sealed class BreakingCallback(IGrainFactory grains, byte[] key, bool committed) : ITransactionCallback
    {
        private int _asked;

        public int Asked => Volatile.Read(ref _asked);

        public async Task<bool> Held()
        {
            await grains.GetGrain<IShardGrain>(Shards.SlotOf(key)).Set(key, Encoding.UTF8.GetBytes("during"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);
            throw new TimeoutException("The held chain's callback did not answer (a partition, in this test made up).");
        }

        public Task<bool> Committed()
        {
            Interlocked.Increment(ref _asked);
            return Task.FromResult(committed);
        }
    }
}
