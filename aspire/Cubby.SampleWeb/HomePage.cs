namespace Cubby.SampleWeb;

/// <summary>The home page: what this app serves.</summary>
internal static class HomePage
{
    public static string Describe() =>
        """
        Cubby sample web app

        GET /primes/{limit}  primes up to limit (2..50000000), computed once and cached in Cubby as primes:{limit}
        GET /visits          visits in this session; the session lives in Cubby (IDistributedCache)
        GET /owner/{key}     which silo owns a key, and its slot
        GET /fibonacci/{n}   the n-th Fibonacci number (0..90) through Cubby's HybridCache: kept in memory, coherent, stored in Cubby as fibonacci:{n}
        GET /health          health checks; /alive for liveness only
        """;
}
