using Cubby.Tests.Infrastructure;
using StackExchange.Redis;

namespace Cubby.Tests.Silo;

/// <summary>StackExchange.Redis's hash calls against a silo.</summary>
public sealed class StackExchangeRedisHashTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    [Fact]
    public async Task Hash_calls_set_read_count_scan_increment_and_delete_fields()
    {
        await using var redis = await ConnectionMultiplexer.ConnectAsync(new ConfigurationOptions
        {
            EndPoints = { { "127.0.0.1", fixture.Silo.RespEndPoint.Port } },
            AbortOnConnectFail = true,
            ConnectTimeout = 10_000,
        });
        var db = redis.GetDatabase();
        RedisKey key = "se:hash:" + Guid.NewGuid().ToString("N");

        await db.HashSetAsync(key, [new("name", "cubby"), new("visits", 1), new("ratio", "0.5")]);
        Assert.True(await db.HashSetAsync(key, "extra", "x"));
        Assert.False(await db.HashSetAsync(key, "extra", "y", When.NotExists));

        Assert.Equal("cubby", await db.HashGetAsync(key, "name"));
        Assert.Equal(["cubby", RedisValue.Null], await db.HashGetAsync(key, ["name", "absent"]));
        Assert.Equal(4, await db.HashLengthAsync(key));
        Assert.True(await db.HashExistsAsync(key, "ratio"));
        Assert.Equal(5, await db.HashStringLengthAsync(key, "name"));
        Assert.Equal(["name", "visits", "ratio", "extra"], (await db.HashKeysAsync(key)).Select(static k => (string)k!));
        Assert.Equal("x", (await db.HashGetAllAsync(key)).ToDictionary()["extra"]);
        Assert.Equal(11, await db.HashIncrementAsync(key, "visits", 10));
        Assert.Equal(1.75, await db.HashIncrementAsync(key, "ratio", 1.25));
        Assert.Equal(["name", "ratio"], db.HashScan(key, "?a*").Select(static entry => (string)entry.Name!).Order());
        Assert.Contains((string)(await db.HashRandomFieldAsync(key))!, new[] { "name", "visits", "ratio", "extra" });

        Assert.Equal(2, await db.HashDeleteAsync(key, ["extra", "ratio", "absent"]));
        Assert.Equal(RedisType.Hash, await db.KeyTypeAsync(key));
        var error = await Assert.ThrowsAsync<RedisServerException>(() => db.StringGetAsync(key));
        Assert.StartsWith("WRONGTYPE", error.Message);
    }
}
