namespace Cubby.Load.Workloads;

/// <summary>How a workload drives the server.</summary>
internal enum WorkloadKind
{
    /// <summary><c>redis-benchmark</c> in its own process: the neutral tool.</summary>
    RedisBenchmark,

    /// <summary>Cubby's client on Cubby; on Redis and Garnet, plain SET PX / GET over the harness's RESP connection.</summary>
    Client,

    /// <summary>Plain SET PX / GET over the harness's RESP connection on every server: the same client everywhere.</summary>
    Raw,

    /// <summary><c>IDistributedCache</c> with a sliding expiry; Cubby only.</summary>
    DistributedCache,
}
