using System.Globalization;
using System.Text;
using Cubby.Grains;
using Cubby.Grains.Commands;
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
/// changed, on this silo and on another, read as before. The transaction's last shard decides: when the silo running
/// the transaction does not answer it, it rolls back.
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

        // Let through past its deadline, the held command is refused, and the last shard decides to roll back when its
        // question to the silo running the transaction times out: each shard's hold ends then, up to a call timeout after
        // EXEC's reply, which a loaded machine stretches past the reads' own timeout. Nothing the transaction ran is kept.
        // Read on the same connection: the EXEC ran longer than the call timeout, and the next command is not late.
        await Poll.UntilAsync(() => Task.FromResult(IsFreeOn(cluster.Primary, local[0]) && IsFreeOn(cluster.Silos[1], remote[0]) && IsFreeOn(cluster.Silos[1], remote[1])), TimeSpan.FromSeconds(30), "every hold of the transaction to end");
        var reader = client;
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

    [Fact]
    public async Task The_last_shard_rolls_the_transaction_back_when_the_silo_running_it_does_not_answer()
    {
        await using var cluster = await TestCluster.StartAsync(1);
        var (grains, bytes, slot, shard) = await OneKeyAsync(cluster);

        // The callback writes in the chain, then fails, as a call across a partition would: the shard, the last (and
        // only) one, decides, and answers anyone who asks.
        var chain = Guid.NewGuid();
        var end = await HoldAsync(grains, shard, slot, bytes, chain, new BreakingCallback(grains, bytes));

        Assert.Equal(HoldEnd.Broken | HoldEnd.RolledBack, end);
        var entry = await shard.Get(bytes, slide: false);
        Assert.Equal("before", Encoding.UTF8.GetString(entry!.Value));
        Assert.False(await shard.Outcome(chain));
        Assert.Null(await shard.Outcome(Guid.NewGuid()));
    }

    [Fact]
    public async Task The_last_shard_asked_before_its_hold_arrives_rolls_the_transaction_back_and_refuses_the_hold()
    {
        await using var cluster = await TestCluster.StartAsync(1);
        var (grains, bytes, slot, shard) = await OneKeyAsync(cluster);

        // A shard before it lost the chain and asks: the last shard never held the transaction, so it decides now.
        var chain = Guid.NewGuid();
        Assert.False(await shard.Decision(chain));
        Assert.False(await shard.Outcome(chain));

        // The hold arriving late is refused: the transaction never runs.
        var callback = new BreakingCallback(grains, bytes);
        var end = await HoldAsync(grains, shard, slot, bytes, chain, callback);

        Assert.Equal(HoldEnd.RolledBack, end);
        Assert.Equal(0, callback.Calls);
        Assert.Equal("before", Encoding.UTF8.GetString((await shard.Get(bytes, slide: false))!.Value));
    }

    [Fact]
    public async Task A_command_reaching_a_shard_after_its_transactions_hold_ended_is_refused_and_nothing_else_is()
    {
        await using var cluster = await TestCluster.StartAsync(1);
        var (grains, bytes, slot, shard) = await OneKeyAsync(cluster);

        // The transaction ran and ended here (its last shard decided); a command of it still on its way arrives now.
        var chain = Guid.NewGuid();
        Assert.Equal(HoldEnd.Committed, await HoldAsync(grains, shard, slot, bytes, chain, new KeepingCallback()));
        var local = cluster.Primary.Services.GetRequiredService<ShardCatalog>().Find(slot)!;
        var late = RelayedCommand.Create(3, index => index switch { 0 => "SET"u8, 1 => bytes, _ => "late"u8 }, global::Cubby.Resp.RespVersion.Resp2);
        RequestContext.ReentrancyId = chain;
        try
        {
            await Assert.ThrowsAsync<HoldEndedException>(async () => await grains.GetGrain<IShardCommands>(slot).Run(late));
            await Assert.ThrowsAsync<HoldEndedException>(async () => await shard.Import(bytes, new ShardEntryCopy("late"u8.ToArray(), EntryKind.String, CacheEntryFlags.None, 0, 0, 0), replace: true));
            Assert.False(local.TryEnterCommandTurn());

            // Work the chain started that is not one of its commands (the id flows with the async context) still runs.
            Assert.True(local.TryEnterTurn());
            local.ExitTurn();
            await shard.Set(bytes, Encoding.UTF8.GetBytes("after"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);
        }
        finally
        {
            RequestContext.ReentrancyId = Guid.Empty;
        }

        Assert.Equal("after", Encoding.UTF8.GetString((await shard.Get(bytes, slide: false))!.Value));
        var reply = await grains.GetGrain<IShardCommands>(slot).Run(RelayedCommand.Create(2, index => index == 0 ? "GET"u8 : bytes, global::Cubby.Resp.RespVersion.Resp2));
        Assert.Equal("$5\r\nafter\r\n", Encoding.UTF8.GetString(reply.Reply));
    }

    /// <summary>A key homed on the cluster's one silo, written "before", with its shard.</summary>
    private static async Task<(IGrainFactory Grains, byte[] Key, int Slot, IShardGrain Shard)> OneKeyAsync(TestCluster cluster)
    {
        var grains = cluster.Primary.Services.GetRequiredService<IGrainFactory>();
        var key = Encoding.UTF8.GetBytes(KeysHomedOn(cluster.Primary, 1)[0]);
        var slot = Shards.SlotOf(key);
        var shard = grains.GetGrain<IShardGrain>(slot);
        await shard.Set(key, Encoding.UTF8.GetBytes("before"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);
        return (grains, key, slot, shard);
    }

    /// <summary>Holds the one shard for the transaction of <paramref name="chain"/> on <paramref name="key"/>, as a silo running it would.</summary>
    private static async Task<HoldEnd> HoldAsync(IGrainFactory grains, IShardGrain shard, int slot, byte[] key, Guid chain, ITransactionCallback callback)
    {
        var reference = grains.CreateObjectReference<ITransactionCallback>(callback);
        RequestContext.ReentrancyId = chain;
        try
        {
            return await shard.Hold([slot], [[key]], 0, reference);
        }
        finally
        {
            RequestContext.ReentrancyId = Guid.Empty;
            grains.DeleteObjectReference<ITransactionCallback>(reference);
        }
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

    private static bool IsFreeOn(TestSilo silo, string key) =>
        silo.Services.GetRequiredService<ShardCatalog>().Find(Shards.SlotOf(Encoding.UTF8.GetBytes(key))) is { IsHeld: false };

    private sealed class KeepingCallback : ITransactionCallback
    {
        public Task<bool> Held() => Task.FromResult(true);
    }

    private sealed class BreakingCallback(IGrainFactory grains, byte[] key) : ITransactionCallback
    {
        private int _calls;

        public int Calls => Volatile.Read(ref _calls);

        public async Task<bool> Held()
        {
            Interlocked.Increment(ref _calls);
            await grains.GetGrain<IShardGrain>(Shards.SlotOf(key)).Set(key, Encoding.UTF8.GetBytes("during"), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always);
            throw new TimeoutException("The held chain's callback did not answer (a partition, in this test made up).");
        }
    }
}
