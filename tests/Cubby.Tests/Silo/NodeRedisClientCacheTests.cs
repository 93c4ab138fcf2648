using System.Globalization;
using System.Text.Json;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>
/// node-redis 5's client-side cache, a real Redis client library that relies on CLIENT TRACKING and RESP3 invalidation
/// pushes, against a silo: its second read is served from its cache, and another connection's write and a FLUSHALL
/// make it read the silo again (tests/node-redis/client-side-cache.mjs).
/// </summary>
public sealed class NodeRedisClientCacheTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    [Fact]
    public async Task Node_redis_caches_reads_and_drops_them_when_the_silo_says_they_changed()
    {
        var directory = Path.Combine(Repository.Root, "tests", "node-redis");
        Assert.True(Directory.Exists(Path.Combine(directory, "node_modules", "redis")), $"node-redis is not installed: run tests/run.sh, or npm ci --prefix {directory}");

        var (exitCode, output, errors) = await RedisTools.RunAsync("node", [Path.Combine(directory, "client-side-cache.mjs"), fixture.Silo.RespEndPoint.Port.ToString(CultureInfo.InvariantCulture)]);

        Assert.True(exitCode == 0, $"node exited with {exitCode}: {output}{errors}");
        using var seen = JsonDocument.Parse(output);
        var root = seen.RootElement;
        Assert.Equal("v1", root.GetProperty("first").GetString());
        Assert.Equal("v1", root.GetProperty("second").GetString());
        Assert.Equal(1, root.GetProperty("misses").GetInt32());
        Assert.Equal(1, root.GetProperty("hits").GetInt32());

        // With no TTL, the cache would serve v1 for ever without the invalidation.
        Assert.Equal("v2", root.GetProperty("afterWrite").GetString());
        Assert.Equal(JsonValueKind.Null, root.GetProperty("afterFlush").ValueKind);
    }
}
