namespace Cubby.Load.Workloads;

/// <summary>One row of the results: what is run, the same way, against each server.</summary>
internal sealed record WorkloadSpec(string Id, WorkloadKind Kind, CacheOperation Operation, string Description, RedisBenchmarkShape? Shape = null)
{
    public bool RunsOn(ServerKind server) => Kind switch
    {
        WorkloadKind.Client or WorkloadKind.DistributedCache => server == ServerKind.Cubby,
        _ => true,
    };

    /// <summary>Every workload, in the order a round runs them on each server (SET before GET, so GETs hit).</summary>
    public static IReadOnlyList<WorkloadSpec> All { get; } = Build();

    private static WorkloadSpec[] Build()
    {
        RedisBenchmarkShape[] shapes = [new(64, 1, 200_000, 20_000), new(64, 16, 1_000_000, 100_000), new(8, 1, 100_000, 10_000)];
        var all = new List<WorkloadSpec>();
        foreach (var shape in shapes)
        {
            foreach (var operation in new[] { CacheOperation.Set, CacheOperation.Get })
            {
                var name = operation == CacheOperation.Set ? "set" : "get";
                all.Add(new WorkloadSpec(
                    $"rb-{name}-c{shape.Clients}-P{shape.Pipeline}",
                    WorkloadKind.RedisBenchmark,
                    operation,
                    $"redis-benchmark -t {name} -d 1024 -r 10000 -c {shape.Clients} -P {shape.Pipeline}",
                    shape));
            }
        }

        all.Add(new("client-set", WorkloadKind.Client, CacheOperation.Set, "Cubby only: ICubbyClient.PutAsync(ExpiresIn 60 s), one shard-grain call through the silo's Orleans gateway. 1 KiB, 10k keys, 64 callers, one Orleans client"));
        all.Add(new("client-get", WorkloadKind.Client, CacheOperation.Get, "Cubby only: ICubbyClient.GetAsync, one shard-grain call. Keys filled first, 64 callers"));
        all.Add(new("se-set", WorkloadKind.StackExchangeRedis, CacheOperation.Set, "StackExchange.Redis StringSetAsync(expiry 60 s) = SET PX, every server: 1 KiB, 10k keys, 64 callers, 1 ConnectionMultiplexer"));
        all.Add(new("se-get", WorkloadKind.StackExchangeRedis, CacheOperation.Get, "StackExchange.Redis StringGetAsync = GET, every server; keys filled first, 64 callers"));
        all.Add(new("distcache-set", WorkloadKind.DistributedCache, CacheOperation.Set, "Cubby only: Cubby's IDistributedCache.SetAsync(SlidingExpiration 60 s) through the gateway; 1 KiB, 10k keys, 64 callers"));
        all.Add(new("distcache-get", WorkloadKind.DistributedCache, CacheOperation.Get, "Cubby only: Cubby's IDistributedCache.GetAsync, which renews the sliding window in the shard's turn; keys filled first, 64 callers"));
        all.Add(new("rediscache-set", WorkloadKind.RedisCache, CacheOperation.Set, "AddStackExchangeRedisCache's IDistributedCache.SetAsync(SlidingExpiration 60 s) = HSET absexp/sldexp/data, then EXPIRE; 1 KiB, 10k keys, 64 callers"));
        all.Add(new("rediscache-get", WorkloadKind.RedisCache, CacheOperation.Get, "AddStackExchangeRedisCache's IDistributedCache.GetAsync = HMGET, then EXPIRE to renew the sliding window; keys filled first, 64 callers"));
        return [.. all];
    }
}
