using System.Diagnostics;
using System.Globalization;

namespace Cubby.Load.NearCache;

/// <summary>
/// <c>nearcache-worker</c>: one of the client processes of <see cref="NearCacheCommand"/>. It connects its stack, writes
/// version 0 of the keys it owns, waits for the common start, then runs callers that each read a Zipf-drawn key 95 times
/// in 100 and write one 5 times, for the duration, and saves its <see cref="OperationLog"/>. A process writes only its own
/// keys (rank modulo the process count), one write at a time per key, so each key's versions are acknowledged in order.
/// The load runs a warm-up first, untimed (the JIT's tiers, the caches' first fills): its writes are logged, as the
/// versions after them build on them, its reads are not.
/// </summary>
internal static class NearCacheWorker
{
    public static async Task<int> RunAsync(IReadOnlyList<string> args)
    {
        string stackName = string.Empty, outPath = string.Empty;
        int port = 0, index = 0, processes = 2, keys = 10_000, callers = 16;
        double seconds = 10, warmup = 0;
        long startAt = 0;
        var known = await CommandOptions.ReadAsync(args, "nearcache-worker (started by nearcache)", new Dictionary<string, Action<string>>
        {
            ["--stack"] = value => stackName = value,
            ["--port"] = value => port = Int(value),
            ["--index"] = value => index = Int(value),
            ["--processes"] = value => processes = Int(value),
            ["--keys"] = value => keys = Int(value),
            ["--callers"] = value => callers = Int(value),
            ["--seconds"] = value => seconds = double.Parse(value, CultureInfo.InvariantCulture),
            ["--warmup"] = value => warmup = double.Parse(value, CultureInfo.InvariantCulture),
            ["--start-at"] = value => startAt = long.Parse(value, CultureInfo.InvariantCulture),
            ["--out"] = value => outPath = value,
        }).ConfigureAwait(false);
        if (!known)
        {
            return 2;
        }

        await using var stack = await CacheStacks.ConnectAsync(stackName, port).ConfigureAwait(false);
        var versions = new long[keys];
        var writing = new int[keys];
        for (var key = index; key < keys; key += processes)
        {
            await stack.WriteAsync(KeyName(key), 0).ConfigureAwait(false);
        }

        var zipf = new ZipfKeys(keys);
        var names = Enumerable.Range(0, keys).Select(KeyName).ToArray();

        // A caller of the fastest stack reads about 30,000 times a second here; the logs take that much room before the clock starts.
        var logs = Enumerable.Range(0, callers).Select(_ => new OperationLog((int)Math.Min(seconds * 40_000, 8_000_000))).ToArray();

        // Every process starts at the same moment of the machine's wall clock, so their loads overlap.
        var wait = DateTimeOffset.FromUnixTimeMilliseconds(startAt) - DateTimeOffset.UtcNow;
        if (wait > TimeSpan.Zero)
        {
            await Task.Delay(wait).ConfigureAwait(false);
        }

        var clock = Stopwatch.StartNew();
        var until = TimeSpan.FromSeconds(warmup + seconds);
        var timedFrom = long.MaxValue;
        var callersRun = Task.WhenAll(Enumerable.Range(0, callers).Select(caller => Task.Run(async () =>
        {
            var log = logs[caller];
            var random = new Random((index * 1000) + caller);
            for (var operation = 1; clock.Elapsed < until; operation++)
            {
                // An in-process hit completes at once; a request handler gives its thread back between requests.
                if (operation % 64 == 0)
                {
                    await Task.Yield();
                }

                var key = zipf.Next(random);
                if (random.Next(100) < 5)
                {
                    // The neighbouring rank when this one is another process's: about as popular.
                    key -= (key % processes) - index;
                    if (key < 0 || key >= keys || Interlocked.CompareExchange(ref writing[key], 1, 0) != 0)
                    {
                        continue;
                    }

                    var version = versions[key] + 1;
                    var sent = Stopwatch.GetTimestamp();
                    await stack.WriteAsync(names[key], version).ConfigureAwait(false);
                    var acked = Stopwatch.GetTimestamp();
                    versions[key] = version;
                    Volatile.Write(ref writing[key], 0);
                    log.Writes.Add((key, version, sent, acked));
                }
                else
                {
                    var began = Stopwatch.GetTimestamp();
                    var read = await stack.ReadAsync(names[key]).ConfigureAwait(false);
                    if (began < Volatile.Read(ref timedFrom))
                    {
                        continue;
                    }

                    if (read is { } version)
                    {
                        log.Reads.Add((key, version, began));
                    }
                    else
                    {
                        log.Misses++;
                    }
                }
            }
        })));

        using var collections = new GcPauseListener();
        await Task.Delay(TimeSpan.FromSeconds(warmup)).ConfigureAwait(false);
        collections.Start();
        var cpuBefore = Process.GetCurrentProcess().TotalProcessorTime;
        var (gen0Before, gen1Before, gen2Before, pauseBefore) = (GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2), GC.GetTotalPauseDuration());
        var allocatedBefore = GC.GetTotalAllocatedBytes();
        Volatile.Write(ref timedFrom, Stopwatch.GetTimestamp());
        await callersRun.ConfigureAwait(false);

        var cpu = Process.GetCurrentProcess().TotalProcessorTime - cpuBefore;
        var allocated = GC.GetTotalAllocatedBytes() - allocatedBefore;
        var all = new OperationLog { Seconds = Stopwatch.GetElapsedTime(timedFrom).TotalSeconds, TimedFrom = timedFrom };
        foreach (var log in logs)
        {
            all.Writes.AddRange(log.Writes);
            all.Reads.AddRange(log.Reads);
            all.Misses += log.Misses;
        }

        var operations = Math.Max(1, all.TimedWrites.Count() + all.Reads.Count + all.Misses);
        var garbage = string.Create(
            CultureInfo.InvariantCulture,
            $"process {index}: collections {GC.CollectionCount(0) - gen0Before} gen0, {GC.CollectionCount(1) - gen1Before} gen1, {GC.CollectionCount(2) - gen2Before} gen2, paused {(GC.GetTotalPauseDuration() - pauseBefore).TotalMilliseconds:0} ms, allocated {allocated / operations} B per operation; {collections}");

        await all.SaveAsync(outPath).ConfigureAwait(false);
        if (stack.Statistics is { } statistics)
        {
            Console.WriteLine($"process {index}: {statistics}");
        }

        Console.WriteLine(garbage);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{ClientCpuPrefix}{cpu.TotalSeconds:0.000}"));

        return 0;
    }

    /// <summary>Starts the line that gives the process's CPU seconds over the timed run.</summary>
    public const string ClientCpuPrefix = "client cpu seconds: ";

    public static string KeyName(int rank) => $"zipf:{rank}";

    private static int Int(string value) => int.Parse(value, CultureInfo.InvariantCulture);
}
