using Cubby.Client;

namespace Cubby.Load.NearCache;

/// <summary>One way an app caches with an in-process copy: how it reads and writes a key.</summary>
internal interface ICacheStack : IAsyncDisposable
{
    /// <summary>The version of the value the stack serves now (<see cref="VersionedValue"/>), or null.</summary>
    ValueTask<long?> ReadAsync(string key);

    /// <summary>Writes <paramref name="version"/>'s value; done when the stack acknowledges it.</summary>
    ValueTask WriteAsync(string key, long version);

    /// <summary>What the stack counted of its own, if anything, for the run's log.</summary>
    string? Statistics => null;
}

/// <summary>The stacks compared, by the name the command line uses.</summary>
internal static class CacheStacks
{
    public const string Cubby = "cubby-near";
    public const string CubbyPushed = "cubby-near-pushed";
    public const string CubbyHybrid = "cubby-hybrid";
    public const string CubbyHybridText = "cubby-hybrid-string";
    public const string Hybrid = "hybrid-redis";
    public const string Fusion = "fusion-redis";
    public const string FusionText = "fusion-redis-string";

    public static IReadOnlyList<string> All { get; } = [Cubby, CubbyPushed, CubbyHybrid, CubbyHybridText, Hybrid, Fusion, FusionText];

    /// <summary>The near cache's coherence of a Cubby stack; null for the others.</summary>
    public static NearCacheCoherence? CoherenceOf(string stack) => stack switch
    {
        Cubby or CubbyHybrid or CubbyHybridText => NearCacheCoherence.Strict,
        CubbyPushed => NearCacheCoherence.Pushed,
        _ => null,
    };

    public static string Describe(string stack) => stack switch
    {
        Cubby => "Cubby client with its near cache (strict: writes wait for it), on a Cubby silo",
        CubbyPushed => "Cubby client with its near cache (pushed: writes do not wait), on a Cubby silo",
        CubbyHybrid => "Cubby's HybridCache (its local tier the near cache, strict), on a Cubby silo",
        CubbyHybridText => "Cubby's HybridCache, values as strings (immutable: no copy per read), on a Cubby silo",
        Hybrid => "HybridCache (L1) over RedisCache on Redis",
        Fusion => "FusionCache (L1) with RedisCache and its Redis backplane on Redis",
        FusionText => "FusionCache with its Redis backplane, values as strings, on Redis",
        _ => stack,
    };

    /// <summary>Connects the stack <paramref name="name"/> to its server.</summary>
    public static async Task<ICacheStack> ConnectAsync(string name, int port)
    {
        ICacheStack stack = name switch
        {
            Cubby or CubbyPushed => new CubbyNearStack(port, CoherenceOf(name)!.Value),
            CubbyHybrid => new CubbyHybridStack(port, asText: false),
            CubbyHybridText => new CubbyHybridStack(port, asText: true),
            Hybrid => new HybridStack(port),
            Fusion => new FusionStack(port, asText: false),
            FusionText => new FusionStack(port, asText: true),
            _ => throw new HarnessException($"unknown stack {name}"),
        };

        // A write and a read before the clock starts: connections made, caches created.
        await stack.WriteAsync("warm-up", 0).ConfigureAwait(false);
        await stack.ReadAsync("warm-up").ConfigureAwait(false);
        return stack;
    }
}
