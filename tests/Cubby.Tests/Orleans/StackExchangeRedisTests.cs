using Cubby.Tests.Infrastructure;
using StackExchange.Redis;

namespace Cubby.Tests.Orleans;

/// <summary>
/// StackExchange.Redis, the .NET Redis client, against Cubby's RESP front doors: it completes its handshake, and keys
/// written through one silo are read, counted, expired and deleted through another, wherever their shards are.
/// </summary>
public sealed class StackExchangeRedisTests
{
    [Fact]
    public async Task StackExchange_Redis_works_against_any_silo_of_a_cluster()
    {
        await using var cluster = await TestCluster.StartAsync(2);
        await using var first = await ConnectAsync(cluster.Silos[0]);
        await using var second = await ConnectAsync(cluster.Silos[1]);
        var writer = first.GetDatabase();
        var reader = second.GetDatabase();
        var keys = Enumerable.Range(0, 50).Select(i => (RedisKey)$"se:{i}").ToArray();

        foreach (var key in keys)
        {
            Assert.True(await writer.StringSetAsync(key, $"value of {key}", TimeSpan.FromMinutes(1)));
        }

        var values = await reader.StringGetAsync(keys);
        Assert.Equal(keys.Select(key => $"value of {key}"), values.Select(value => value.ToString()));
        Assert.InRange((await reader.KeyTimeToLiveAsync(keys[0]))!.Value, TimeSpan.FromSeconds(50), TimeSpan.FromMinutes(1));
        Assert.False(await reader.StringSetAsync(keys[1], "not stored", when: When.NotExists));

        Assert.Equal(5, await reader.StringIncrementAsync("se:counter", 5));
        Assert.Equal(3, await writer.StringIncrementAsync("se:counter", -2));

        Assert.Equal(2, await reader.KeyDeleteAsync([keys[0], keys[1], "se:absent"]));
        Assert.False(await writer.KeyExistsAsync(keys[0]));
        Assert.True((await writer.StringGetAsync(keys[0])).IsNull);
        Assert.Equal(48, await writer.KeyExistsAsync(keys));
    }

    private static Task<ConnectionMultiplexer> ConnectAsync(TestSilo silo) =>
        ConnectionMultiplexer.ConnectAsync(new ConfigurationOptions
        {
            EndPoints = { { "127.0.0.1", silo.RespEndPoint.Port } },
            AbortOnConnectFail = true,
            ConnectTimeout = 10_000,
        });
}
