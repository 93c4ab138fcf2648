using System.Diagnostics;

namespace Cubby.Load.Workloads;

/// <summary>
/// N callers, each issuing its next operation as soon as the previous one completes, on uniformly random keys, for a
/// fixed time. Each caller records its latencies into its own histogram; they are merged at the end.
/// </summary>
internal static class ClosedLoop
{
    /// <summary>A caller that keeps failing stops, so a dead server ends the phase instead of spinning.</summary>
    private const int MaxErrorsPerCaller = 100;

    private static readonly double NanosecondsPerTick = 1e9 / Stopwatch.Frequency;

    public static async Task<PhaseResult> RunAsync(ICacheTarget target, CacheOperation operation, int callers, int keys, TimeSpan duration)
    {
        using var stop = new CancellationTokenSource();
        var loops = new CallerLoop[callers];
        var tasks = new Task[callers];
        var clock = Stopwatch.StartNew();
        for (var i = 0; i < callers; i++)
        {
            loops[i] = new CallerLoop(target.CreateCaller(), operation, keys);
            tasks[i] = loops[i].RunAsync(stop.Token);
        }

        await Task.Delay(duration).ConfigureAwait(false);
        await stop.CancelAsync().ConfigureAwait(false);
        await Task.WhenAll(tasks).ConfigureAwait(false);
        clock.Stop();

        var latency = new LatencyHistogram();
        long operations = 0, errors = 0, misses = 0;
        string? firstError = null;
        foreach (var loop in loops)
        {
            latency.Add(loop.Latency);
            operations += loop.Operations;
            errors += loop.Errors;
            misses += loop.Misses;
            firstError ??= loop.FirstError;
        }

        return new PhaseResult(operations, errors, misses, clock.Elapsed, latency, firstError);
    }

    /// <summary>Sets every key once, 64 at a time, so a following read phase hits.</summary>
    public static async Task FillAsync(ICacheTarget target, int keys, int callers)
    {
        var next = -1;
        var tasks = Enumerable.Range(0, callers).Select(async _ =>
        {
            var caller = target.CreateCaller();
            int key;
            while ((key = Interlocked.Increment(ref next)) < keys)
            {
                await caller.SetAsync(key).ConfigureAwait(false);
            }
        });
        await Task.WhenAll(tasks).ConfigureAwait(false);
    }

    private sealed class CallerLoop(ICacheCaller caller, CacheOperation operation, int keys)
    {
        public LatencyHistogram Latency { get; } = new();

        public long Operations { get; private set; }

        public long Errors { get; private set; }

        public long Misses { get; private set; }

        public string? FirstError { get; private set; }

        public async Task RunAsync(CancellationToken stop)
        {
            // Let every loop start before any runs, so the first caller does not get a head start.
            await Task.Yield();
            var random = new Random();
            while (!stop.IsCancellationRequested && Errors < MaxErrorsPerCaller)
            {
                var key = random.Next(keys);
                var started = Stopwatch.GetTimestamp();
                try
                {
                    if (operation == CacheOperation.Set)
                    {
                        await caller.SetAsync(key).ConfigureAwait(false);
                    }
                    else if (!await caller.GetAsync(key).ConfigureAwait(false))
                    {
                        Misses++;
                    }
                }
                catch (Exception exception) when (exception is IOException or InvalidOperationException or TimeoutException or Client.CubbyException)
                {
                    Errors++;
                    FirstError ??= exception.Message;
                    continue;
                }

                Latency.Record((long)((Stopwatch.GetTimestamp() - started) * NanosecondsPerTick));
                Operations++;
            }
        }
    }
}
