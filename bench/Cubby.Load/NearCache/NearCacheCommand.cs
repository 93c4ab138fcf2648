using System.Globalization;
using System.Text;
using Cubby.Client;

namespace Cubby.Load.NearCache;

/// <summary>
/// <c>nearcache [--seconds S] [--warmup S] [--keys N] [--callers C] [--rounds R] [--repeat N] [--stacks A,B] [--out DIR] [--silo PATH]</c>: apps with an
/// in-process copy of the cache, side by side in one run: Cubby's client with its near cache on a Cubby silo, strict and
/// pushed (<see cref="NearCacheCoherence"/>), Cubby's own HybridCache on it, HybridCache over RedisCache on Redis, and
/// FusionCache with its Redis backplane on Redis.
/// <list type="bullet">
/// <item>Push delay: from a write's acknowledgment to another Cubby client's near cache dropping its copy.</item>
/// <item>Zipf load from two client processes (<see cref="NearCacheWorker"/>): 95 % reads, 5 % writes, keys drawn by
/// Zipf's law; throughput, server CPU per operation, and reads that returned a value older than one acknowledged before
/// they began (<see cref="Staleness"/>), counted by how much older. Every stack runs once uncounted first, so the
/// silo's code is at its final tier, as a silo serving apps has it.</item>
/// </list>
/// Writes <c>near-cache-zipf.md</c> and <c>.svg</c> into the output folder (<c>bench/results</c> unless <c>--out</c>),
/// replacing the last run (git keeps the history).
/// </summary>
internal static class NearCacheCommand
{
    public const string Usage = "nearcache [--seconds S (10)] [--warmup S (5)] [--keys N (10000)] [--callers C (16)] [--rounds R (2000)] [--repeat N (1)] [--stacks A,B (all: " + StackNames + ")] [--out DIR (bench/results: near-cache-zipf.md, .svg)] [--silo PATH]";

    private const int Processes = 2;

    private const string StackNames =
        CacheStacks.Cubby + "," + CacheStacks.CubbyPushed + "," + CacheStacks.CubbyHybrid + "," + CacheStacks.CubbyHybridText + "," + CacheStacks.Hybrid + "," + CacheStacks.Fusion + "," + CacheStacks.FusionText;

    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter log)
    {
        double seconds = 10, warmup = 5;
        int keys = 10_000, callers = 16, rounds = 2000, repeat = 1;
        string? siloPath = null;
        IReadOnlyList<string> stacks = CacheStacks.All;
        var outDirectory = Path.Combine(RepositoryRoot.Find(), "bench", "results");
        var known = await CommandOptions.ReadAsync(args, Usage, new Dictionary<string, Action<string>>
        {
            ["--seconds"] = value => seconds = double.Parse(value, CultureInfo.InvariantCulture),
            ["--warmup"] = value => warmup = double.Parse(value, CultureInfo.InvariantCulture),
            ["--keys"] = value => keys = int.Parse(value, CultureInfo.InvariantCulture),
            ["--callers"] = value => callers = int.Parse(value, CultureInfo.InvariantCulture),
            ["--rounds"] = value => rounds = int.Parse(value, CultureInfo.InvariantCulture),
            ["--repeat"] = value => repeat = Math.Max(1, int.Parse(value, CultureInfo.InvariantCulture)),
            ["--out"] = value => outDirectory = value,
            ["--silo"] = value => siloPath = value,
            ["--stacks"] = value => stacks = value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries),
        }).ConfigureAwait(false);
        if (!known)
        {
            return 2;
        }

        if (stacks.FirstOrDefault(stack => !CacheStacks.All.Contains(stack)) is { } unknown)
        {
            await log.WriteLineAsync($"unknown stack {unknown}; the stacks are {StackNames}").ConfigureAwait(false);
            return 2;
        }

        var tools = Prerequisites.ForSilo(siloPath) with
        {
            RedisServer = ExternalProcess.Which("redis-server") ?? throw new HarnessException("redis-server is not installed (apt-get install redis-server)."),
        };

        using var redis = await ServerProcess.StartAsync(ServerKind.Redis, tools).ConfigureAwait(false);
        using var silo = await ServerProcess.StartAsync(ServerKind.Cubby, tools).ConfigureAwait(false);

        var idle = new Dictionary<NearCacheCoherence, PushDelays>();
        foreach (var coherence in Enum.GetValues<NearCacheCoherence>())
        {
            idle[coherence] = PushDelays.Of(await PushDelay.MeasureAsync(silo.GatewayPort, coherence, rounds).ConfigureAwait(false));
            await log.WriteLineAsync($"push delay, idle, {coherence}: {idle[coherence]}").ConfigureAwait(false);
        }

        // One pass of every stack before the rounds, not counted: a fresh silo's code is still being compiled to its final
        // tier under the load (its CPU per operation fell by a quarter over five rounds without this pass), and a silo
        // serving apps has long since reached it. Redis has nothing to warm; its stacks run the pass too, alike.
        foreach (var stack in stacks)
        {
            var coherence = CacheStacks.CoherenceOf(stack);
            await RunStackAsync(stack, coherence is null ? redis : silo, coherence is null ? redis.Port : silo.GatewayPort, keys, callers, seconds, warmup, 0, TextWriter.Null)
                .ConfigureAwait(false);
        }

        // Rounds of every stack in turn, so that a slow spell of this shared machine falls on all of them rather than on
        // whichever ran first.
        var runs = new List<StackRun>();
        for (var round = 1; round <= repeat; round++)
        {
            foreach (var stack in stacks)
            {
                var coherence = CacheStacks.CoherenceOf(stack);
                var server = coherence is null ? redis : silo;
                var port = coherence is null ? redis.Port : silo.GatewayPort;
                var pushDelayMs = Math.Max(0, idle[coherence ?? NearCacheCoherence.Pushed].Delay.P99) / 1000;
                var (staleness, clientCpu, cpu) = await RunStackAsync(stack, server, port, keys, callers, seconds, warmup, pushDelayMs, log).ConfigureAwait(false);
                var operations = Math.Max(1, staleness.Reads + staleness.Writes);
                runs.Add(new StackRun(stack, round, staleness, cpu * 1e6 / operations, clientCpu * 1e6 / operations));
            }
        }

        var results = stacks.Select(stack => StackRun.Median(runs.Where(run => run.Stack == stack))).ToList();

        // Measured again while the two processes load the silo, by a third client pair in this process: in a pass of
        // its own, whose figures the table leaves out, as the probe's writes would load the stack it ran beside.
        var loaded = new Dictionary<NearCacheCoherence, PushDelays>();
        foreach (var stack in stacks)
        {
            if (CacheStacks.CoherenceOf(stack) is not { } coherence || loaded.ContainsKey(coherence))
            {
                continue;
            }

            using var stopProbe = new CancellationTokenSource();
            var probe = Task.Run(async () =>
            {
                await Task.Delay(TimeSpan.FromSeconds(11)).ConfigureAwait(false);
                return await PushDelay.MeasureAsync(silo.GatewayPort, coherence, int.MaxValue / 2, stopProbe.Token).ConfigureAwait(false);
            });
            await RunStackAsync(stack, silo, silo.GatewayPort, keys, callers, seconds, warmup, 0, TextWriter.Null).ConfigureAwait(false);
            await stopProbe.CancelAsync().ConfigureAwait(false);
            loaded[coherence] = PushDelays.Of(await probe.ConfigureAwait(false));
            await log.WriteLineAsync($"push delay, under the load of {stack}, {coherence}: {loaded[coherence]}").ConfigureAwait(false);
        }

        Directory.CreateDirectory(outDirectory);
        var stem = Path.Combine(outDirectory, "near-cache-zipf");
        await File.WriteAllTextAsync(stem + ".md", Markdown(results, runs, repeat, idle, loaded, keys, callers, seconds, warmup)).ConfigureAwait(false);
        if (tools.Gnuplot is { } gnuplot)
        {
            await NearCacheChart.WriteAsync(results.ConvertAll(static run => (run.Stack, run.Staleness)), gnuplot, stem + ".svg").ConfigureAwait(false);
        }

        await log.WriteLineAsync($"Wrote {stem}.md{(tools.Gnuplot is null ? " (no gnuplot: no chart)" : " and .svg")}").ConfigureAwait(false);
        return 0;
    }

    /// <summary>
    /// Runs one stack's two worker processes; returns what they saw in the timed run (after the warm-up), and the CPU
    /// seconds they and <paramref name="server"/> used over it.
    /// </summary>
    private static async Task<(Staleness Staleness, double ClientCpuSeconds, double ServerCpuSeconds)> RunStackAsync(
        string stack, ServerProcess server, int port, int keys, int callers, double seconds, double warmup, double pushDelayMs, TextWriter log)
    {
        var work = Directory.CreateTempSubdirectory("cubby-near-");
        try
        {
            // Long enough for both processes to start, connect and write their keys before the common start.
            var startAt = DateTimeOffset.UtcNow.AddSeconds(10).ToUnixTimeMilliseconds();
            var self = typeof(NearCacheCommand).Assembly.Location;
            var workers = Enumerable.Range(0, Processes).Select(index => ExternalProcess.RunAsync(
                ExternalProcess.DotnetHost(),
                [
                    self, "nearcache-worker", "--stack", stack, "--port", Text(port), "--index", Text(index), "--processes", Text(Processes),
                    "--keys", Text(keys), "--callers", Text(callers), "--seconds", seconds.ToString(CultureInfo.InvariantCulture),
                    "--warmup", warmup.ToString(CultureInfo.InvariantCulture),
                    "--start-at", startAt.ToString(CultureInfo.InvariantCulture), "--out", Path.Combine(work.FullName, $"{index}.log"),
                ],
                TimeSpan.FromSeconds(warmup + seconds + 120))).ToArray();
            var timedFrom = DateTimeOffset.FromUnixTimeMilliseconds(startAt).AddSeconds(warmup) - DateTimeOffset.UtcNow;
            await Task.Delay(timedFrom > TimeSpan.Zero ? timedFrom : TimeSpan.Zero).ConfigureAwait(false);
            var serverCpuBefore = server.CpuSeconds;
            var clientCpu = 0.0;
            var finished = await Task.WhenAll(workers).ConfigureAwait(false);
            var serverCpu = server.CpuSeconds - serverCpuBefore;
            foreach (var (exitCode, output, errors) in finished)
            {
                if (exitCode != 0)
                {
                    throw new HarnessException($"a {stack} worker failed with exit code {exitCode}:\n{ExternalProcess.Tail(output + errors)}");
                }

                foreach (var line in output.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
                {
                    if (line.StartsWith(NearCacheWorker.ClientCpuPrefix, StringComparison.Ordinal))
                    {
                        clientCpu += double.Parse(line[NearCacheWorker.ClientCpuPrefix.Length..], CultureInfo.InvariantCulture);
                    }
                    else
                    {
                        await log.WriteLineAsync($"{stack} {line}").ConfigureAwait(false);
                    }
                }
            }

            var staleness = Staleness.Of([.. Enumerable.Range(0, Processes).Select(index => OperationLog.Load(Path.Combine(work.FullName, $"{index}.log")))], keys, pushDelayMs);
            await log.WriteLineAsync(string.Create(
                CultureInfo.InvariantCulture,
                $"{stack}: {staleness.Reads / staleness.Seconds:0} reads/s, {staleness.Writes / staleness.Seconds:0} writes/s, clients' CPU {clientCpu:0.0} s, {staleness.Stale} stale reads ({staleness.BeyondPushDelay} beyond the push delay p99), oldest {staleness.MaxAgeMs:0.#} ms")).ConfigureAwait(false);
            return (staleness, clientCpu, serverCpu);
        }
        finally
        {
            work.Delete(recursive: true);
        }
    }

    private static string Markdown(List<StackRun> results, List<StackRun> runs, int repeat, Dictionary<NearCacheCoherence, PushDelays> idle, Dictionary<NearCacheCoherence, PushDelays> loaded, int keys, int callers, double seconds, double warmup)
    {
        var text = new StringBuilder()
            .AppendLine("# Near caches side by side")
            .AppendLine()
            .AppendLine(string.Create(CultureInfo.InvariantCulture, $"`dotnet run -c Release --project bench/Cubby.Load -- nearcache`: {Processes} client processes, {callers} callers each, {seconds:0} s timed after a {warmup:0} s warm-up, after one uncounted pass of every stack; {keys:N0} keys drawn by Zipf's law (s = 0.99), 95 % reads, 5 % writes of {VersionedValue.Size} B values; each process writes only its own keys, one write at a time per key."))
            .AppendLine()
            .AppendLine("Push delay, from a write's acknowledgment to another Cubby client's near cache having dropped its copy (negative: the invalidation came before the acknowledgment), and how long those writes took:")
            .AppendLine();
        foreach (var (coherence, delays) in idle)
        {
            text.AppendLine($"- {coherence}, idle: {delays};")
                .AppendLine($"- {coherence}, while the two processes load the silo (a pass of its own, not in the table): {(loaded.TryGetValue(coherence, out var underLoad) ? underLoad : "not measured")}.");
        }

        text.AppendLine()
            .AppendLine("A read is stale when it returned a version older than one acknowledged (by either process) before the read began; its age is how long before.")
            .AppendLine()
            .AppendLine("Server CPU is the silo's (or Redis's) per operation; client CPU the two worker processes' together, per operation. All share the machine's cores, so a server that takes more CPU leaves the clients less.")
            .AppendLine()
            .Append("| Stack | Reads/s | Writes/s | Write p50 µs | Write p99 µs | Server CPU µs per op | Client CPU µs per op | Misses | Stale reads |");
        foreach (var threshold in Staleness.Thresholds)
        {
            text.Append(CultureInfo.InvariantCulture, $" older than {threshold:0.#} ms |");
        }

        text.AppendLine(" beyond idle push delay p99 | Oldest ms |").Append("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var _ in Staleness.Thresholds)
        {
            text.Append("---:|");
        }

        text.AppendLine("---:|---:|");
        foreach (var (stack, _, s, cpu, clientCpu) in results)
        {
            text.Append(CultureInfo.InvariantCulture, $"| {CacheStacks.Describe(stack)} | {s.Reads / s.Seconds:0} | {s.Writes / s.Seconds:0} | {s.WriteP50Us:0} | {s.WriteP99Us:0} | {cpu:0.00} | {clientCpu:0.00} | {s.Misses} | {s.Stale} |");
            foreach (var count in s.StaleBeyond)
            {
                text.Append(CultureInfo.InvariantCulture, $" {count} |");
            }

            text.AppendLine(CultureInfo.InvariantCulture, $" {s.MaxAgeMs:0.#} |");
        }

        if (repeat > 1)
        {
            text.AppendLine()
                .AppendLine(CultureInfo.InvariantCulture, $"Each stack ran {repeat} times, the stacks in turn; the table gives each stack's median run by reads/s. Every run:")
                .AppendLine()
                .AppendLine("| Stack | Round | Reads/s | Server CPU µs per op | Client CPU µs per op | Stale reads |")
                .AppendLine("|---|---:|---:|---:|---:|---:|");
            foreach (var (stack, round, s, cpu, clientCpu) in runs.OrderBy(static run => run.Stack, StringComparer.Ordinal).ThenBy(static run => run.Round))
            {
                text.AppendLine(CultureInfo.InvariantCulture, $"| {stack} | {round} | {s.Reads / s.Seconds:0} | {cpu:0.00} | {clientCpu:0.00} | {s.Stale} |");
            }
        }

        return text.ToString();
    }

    private static string Text(int value) => value.ToString(CultureInfo.InvariantCulture);

    /// <summary>One run of one stack: what its reads saw, and the server's and clients' CPU per operation.</summary>
    private sealed record StackRun(string Stack, int Round, Staleness Staleness, double CpuPerOperation, double ClientCpuPerOperation)
    {
        public double ReadsPerSecond => Staleness.Reads / Staleness.Seconds;

        public static StackRun Median(IEnumerable<StackRun> runs)
        {
            var ordered = runs.OrderBy(static run => run.ReadsPerSecond).ToList();
            return ordered[(ordered.Count - 1) / 2];
        }
    }

    /// <summary>Push delays and the probe writes' times.</summary>
    private sealed record PushDelays(Percentiles Delay, Percentiles Writes)
    {
        public static PushDelays Of(List<(double AfterAcknowledgment, double Write)> samples) =>
            new(Percentiles.Of([.. samples.Select(static sample => sample.AfterAcknowledgment)]), Percentiles.Of([.. samples.Select(static sample => sample.Write)]));

        public override string ToString() => $"{Delay}; those writes took {Writes}";
    }

    /// <summary>Times in microseconds, summarized.</summary>
    private sealed record Percentiles(int Count, double P50, double P99, double Max)
    {
        public static Percentiles Empty { get; } = new(0, 0, 0, 0);

        public static Percentiles Of(List<double> delays)
        {
            if (delays.Count == 0)
            {
                return Empty;
            }

            delays.Sort();
            return new(delays.Count, delays[delays.Count / 2], delays[(int)(delays.Count * 0.99)], delays[^1]);
        }

        public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"p50 {P50:0} µs, p99 {P99:0} µs, max {Max:0} µs over {Count} writes");
    }
}
