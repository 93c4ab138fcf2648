using Cubby.Tests.Infrastructure;
using StackExchange.Redis;

namespace Cubby.Tests.Silo;

/// <summary>StackExchange.Redis's transactions (MULTI ... EXEC underneath) against a silo.</summary>
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

    private static Task<ConnectionMultiplexer> ConnectAsync(TestSilo silo) =>
        ConnectionMultiplexer.ConnectAsync(new ConfigurationOptions
        {
            EndPoints = { { "127.0.0.1", silo.RespEndPoint.Port } },
            AbortOnConnectFail = true,
            ConnectTimeout = 10_000,
        });
}
