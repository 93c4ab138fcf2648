using System.Diagnostics;
using System.Globalization;
using Cubby.Load.Cluster;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Load.Hybrid;

/// <summary>
/// <c>hybrid-tags [--silos N] [--entries N] [--rounds N] [--silo PATH]</c>: Cubby's HybridCache on a Development cluster
/// of silo processes, one app instance per silo in this process (each given its own silo's gateway). Each round writes
/// <c>--entries</c> entries carrying one tag from the instances in turn, has every instance read every entry until it
/// keeps it, then removes the tag from one instance and times the call; every instance then reads every entry once more
/// and counts the hits, which must be none. Reports the removal's p50, p99 and max, and the hits after removal.
/// </summary>
internal static class TagRemovalCommand
{
    public const string Usage = "hybrid-tags [--silos N (3)] [--entries N (10000)] [--rounds N (20)] [--silo PATH]";

    private static readonly HybridCacheEntryOptions Options = new() { Expiration = TimeSpan.FromMinutes(30), LocalCacheExpiration = TimeSpan.FromMinutes(30) };

    // A read after the removal stores nothing when it misses, so a later miss is not hidden by a value it wrote.
    private static readonly HybridCacheEntryOptions Uncached = new() { Flags = HybridCacheEntryFlags.DisableDistributedCacheWrite | HybridCacheEntryFlags.DisableLocalCacheWrite };

    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter log)
    {
        int silos = 3, entries = 10_000, rounds = 20;
        string? siloPath = null;
        var known = await CommandOptions.ReadAsync(args, Usage, new Dictionary<string, Action<string>>
        {
            ["--silos"] = value => silos = int.Parse(value, CultureInfo.InvariantCulture),
            ["--entries"] = value => entries = int.Parse(value, CultureInfo.InvariantCulture),
            ["--rounds"] = value => rounds = int.Parse(value, CultureInfo.InvariantCulture),
            ["--silo"] = value => siloPath = value,
        }).ConfigureAwait(false);
        if (!known)
        {
            return 2;
        }

        var cluster = await DevelopmentCluster.StartAsync(Prerequisites.ForSilo(siloPath), silos, []).ConfigureAwait(false);
        var apps = cluster.Select(static silo =>
        {
            var services = new ServiceCollection();
            services.AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{silo.GatewayPort}")).AddCubbyHybridCache();
            return services.BuildServiceProvider();
        }).ToArray();
        try
        {
            var caches = apps.Select(static app => app.GetRequiredService<HybridCache>()).ToArray();
            var removals = new List<double>();
            long hitsAfter = 0;
            for (var round = 0; round < rounds; round++)
            {
                var tag = $"round-{round}";
                var keys = Enumerable.Range(0, entries).Select(i => $"tagged:{round}:{i}").ToArray();
                await Parallel.ForEachAsync(keys.Select(static (key, index) => (key, index)), async (item, token) =>
                    await caches[item.index % caches.Length].SetAsync(item.key, item.index, Options, [tag], token).ConfigureAwait(false)).ConfigureAwait(false);
                foreach (var cache in caches)
                {
                    // Twice: the first read through the cluster keeps the entry, the second is a local hit.
                    await ReadAllAsync(cache, keys, Options).ConfigureAwait(false);
                    await ReadAllAsync(cache, keys, Options).ConfigureAwait(false);
                }

                var clock = Stopwatch.StartNew();
                await caches[round % caches.Length].RemoveByTagAsync(tag).ConfigureAwait(false);
                removals.Add(clock.Elapsed.TotalMilliseconds);
                foreach (var cache in caches)
                {
                    hitsAfter += await ReadAllAsync(cache, keys, Uncached).ConfigureAwait(false);
                }
            }

            removals.Sort();
            var row = string.Create(
                CultureInfo.InvariantCulture,
                $"| {silos} | {entries:N0} | {rounds} | {Percentile(removals, 50):0.###} | {Percentile(removals, 99):0.###} | {removals[^1]:0.###} | {hitsAfter} |");
            await log.WriteLineAsync(
                $"\n| Silo processes | Entries with the tag | Rounds | RemoveByTagAsync p50 ms | p99 ms | max ms | Hits after removal |\n|---:|---:|---:|---:|---:|---:|---:|\n{row}").ConfigureAwait(false);
            return hitsAfter == 0 ? 0 : 1;
        }
        finally
        {
            foreach (var app in apps)
            {
                await app.DisposeAsync().ConfigureAwait(false);
            }

            foreach (var silo in cluster)
            {
                silo.Dispose();
            }
        }
    }

    /// <summary>The nearest-rank percentile of sorted <paramref name="values"/>.</summary>
    private static double Percentile(List<double> values, double percent) =>
        values[Math.Clamp((int)Math.Ceiling(percent / 100 * values.Count) - 1, 0, values.Count - 1)];

    /// <summary>Reads every key; returns how many were hits (the factory, which marks a miss, did not run).</summary>
    private static async Task<long> ReadAllAsync(HybridCache cache, string[] keys, HybridCacheEntryOptions options)
    {
        long hits = 0;
        await Parallel.ForEachAsync(keys, new ParallelOptions { MaxDegreeOfParallelism = 32 }, async (key, token) =>
        {
            var value = await cache.GetOrCreateAsync(key, static _ => ValueTask.FromResult(-1), options, cancellationToken: token).ConfigureAwait(false);
            if (value >= 0)
            {
                Interlocked.Increment(ref hits);
            }
        }).ConfigureAwait(false);
        return hits;
    }
}
