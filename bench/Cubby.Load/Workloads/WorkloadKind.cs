namespace Cubby.Load.Workloads;

/// <summary>How a workload drives the server.</summary>
internal enum WorkloadKind
{
    /// <summary><c>redis-benchmark</c> in its own process: the neutral tool.</summary>
    RedisBenchmark,

    /// <summary><c>ICubbyClient</c> through the Orleans gateway; Cubby only.</summary>
    Client,

    /// <summary>StackExchange.Redis <c>StringSetAsync</c> with expiry / <c>StringGetAsync</c> on every server: the same client everywhere.</summary>
    StackExchangeRedis,

    /// <summary><c>IDistributedCache</c> with a sliding expiry; Cubby only.</summary>
    DistributedCache,

    /// <summary>
    /// <c>AddStackExchangeRedisCache</c>'s <c>IDistributedCache</c>, the same calls as <see cref="DistributedCache"/>;
    /// every server, Cubby through its RESP door.
    /// </summary>
    RedisCache,
}
