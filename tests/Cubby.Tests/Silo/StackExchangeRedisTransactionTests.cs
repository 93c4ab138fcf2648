using Cubby.Tests.Infrastructure;
using StackExchange.Redis;

namespace Cubby.Tests.Silo;

/// <summary>StackExchange.Redis's transactions, conditions and locks (WATCH, MULTI ... EXEC underneath) against a silo.</summary>
public sealed class StackExchangeRedisTransactionTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    [Fact]
    public async Task A_transaction_without_conditions_runs_every_command_and_answers_each_task()
    {
        await using var redis = await ConnectAsync(fixture.Silo);
        var db = redis.GetDatabase();
        await db.StringSetAsync("se:tx:counter", 10);

        var transaction = db.CreateTransaction();
        var incremented = transaction.StringIncrementAsync("se:tx:counter", 5);
        var set = transaction.StringSetAsync("se:tx:other", "value", TimeSpan.FromMinutes(1));
        var read = transaction.StringGetAsync("se:tx:other");
        var failed = transaction.StringIncrementAsync("se:tx:other");

        Assert.True(await transaction.ExecuteAsync());

        Assert.Equal(15, await incremented);
        Assert.True(await set);
        Assert.Equal("value", await read);
        await Assert.ThrowsAsync<RedisServerException>(() => failed);
        Assert.Equal(15, (long)await db.StringGetAsync("se:tx:counter"));
    }

    [Fact]
    public async Task A_transaction_runs_when_its_conditions_hold_and_runs_nothing_when_one_fails()
    {
        await using var redis = await ConnectAsync(fixture.Silo);
        var db = redis.GetDatabase();
        await db.StringSetAsync("se:cond:version", "1");
        await db.KeyDeleteAsync("se:cond:absent");

        var passing = db.CreateTransaction();
        passing.AddCondition(Condition.StringEqual("se:cond:version", "1"));
        passing.AddCondition(Condition.KeyNotExists("se:cond:absent"));
        _ = passing.StringSetAsync("se:cond:version", "2");
        _ = passing.StringSetAsync("se:cond:payload", "first");
        Assert.True(await passing.ExecuteAsync());

        var failing = db.CreateTransaction();
        failing.AddCondition(Condition.StringEqual("se:cond:version", "1"));
        _ = failing.StringSetAsync("se:cond:version", "3");
        _ = failing.StringSetAsync("se:cond:payload", "second");
        Assert.False(await failing.ExecuteAsync());

        Assert.Equal("2", await db.StringGetAsync("se:cond:version"));
        Assert.Equal("first", await db.StringGetAsync("se:cond:payload"));
    }

    [Fact]
    public async Task Locks_are_taken_extended_and_released_only_by_their_owner()
    {
        await using var redis = await ConnectAsync(fixture.Silo);
        var db = redis.GetDatabase();
        const string Lock = "se:lock:resource";
        await db.KeyDeleteAsync(Lock);

        Assert.True(await db.LockTakeAsync(Lock, "owner", TimeSpan.FromSeconds(30)));
        Assert.False(await db.LockTakeAsync(Lock, "intruder", TimeSpan.FromSeconds(30)));

        Assert.False(await db.LockExtendAsync(Lock, "intruder", TimeSpan.FromMinutes(10)));
        Assert.True((await db.KeyTimeToLiveAsync(Lock))!.Value <= TimeSpan.FromSeconds(30));
        Assert.True(await db.LockExtendAsync(Lock, "owner", TimeSpan.FromMinutes(10)));
        Assert.True((await db.KeyTimeToLiveAsync(Lock))!.Value > TimeSpan.FromMinutes(9));

        Assert.False(await db.LockReleaseAsync(Lock, "intruder"));
        Assert.Equal("owner", await db.LockQueryAsync(Lock));
        Assert.True(await db.LockReleaseAsync(Lock, "owner"));
        Assert.False(await db.KeyExistsAsync(Lock));
    }

    private static Task<ConnectionMultiplexer> ConnectAsync(TestSilo silo) =>
        ConnectionMultiplexer.ConnectAsync(new ConfigurationOptions
        {
            EndPoints = { { "127.0.0.1", silo.RespEndPoint.Port } },
            AbortOnConnectFail = true,
            ConnectTimeout = 10_000,
        });
}
