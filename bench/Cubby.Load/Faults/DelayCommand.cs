using System.Diagnostics;
using System.Globalization;
using System.Text;
using Cubby.Client;
using Microsoft.Extensions.DependencyInjection;
using StackExchange.Redis;

namespace Cubby.Load.Faults;

/// <summary>
/// <c>delay</c>: a cluster in a <see cref="FaultNetwork"/> (silos clustered through PostgreSQL, as <c>faults</c> runs
/// them) measured three times, each on a fresh cluster: silo links direct, through the <see cref="DelayRelay"/> holding
/// nothing (what the relay itself costs), and through it holding every byte <c>--delay-ms</c> each way. Each time, a
/// gateway client's Gets and Sets (one hop to the shard's silo; a Set also waits for its replica on another silo) and
/// RESP GETs and SETs through the first silo's door (which forwards what the others hold): ops/s, p50, p99, and the
/// silos' CPU per operation. Writes <c>silo-delay.md</c> into the output folder (<c>bench/results</c> unless
/// <c>--out</c>), replacing the last run (git keeps the history).
/// </summary>
internal static class DelayCommand
{
    public const string Usage = "delay [--silos N (3)] [--delay-ms MS (0.2)] [--seconds S (8)] [--callers C (32)] [--out DIR (bench/results: silo-delay.md)] [--silo PATH]";

    private const int Keys = 10_000;
    private const int ValueBytes = 256;
    private const int CallersPerConnection = 4;
    private static readonly TimeSpan WarmUp = TimeSpan.FromSeconds(3);

    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter log)
    {
        int silos = 3, callers = 32;
        double delayMs = 0.2, seconds = 8;
        string? siloPath = null;
        var outDirectory = Path.Combine(RepositoryRoot.Find(), "bench", "results");
        var known = await CommandOptions.ReadAsync(args, Usage, new Dictionary<string, Action<string>>
        {
            ["--silos"] = value => silos = int.Parse(value, CultureInfo.InvariantCulture),
            ["--delay-ms"] = value => delayMs = double.Parse(value, CultureInfo.InvariantCulture),
            ["--seconds"] = value => seconds = double.Parse(value, CultureInfo.InvariantCulture),
            ["--callers"] = value => callers = int.Parse(value, CultureInfo.InvariantCulture),
            ["--out"] = value => outDirectory = value,
            ["--silo"] = value => siloPath = value,
        }).ConfigureAwait(false);
        if (!known)
        {
            return 2;
        }

        var tools = Prerequisites.ForSilo(siloPath);
        var rows = new List<string>();
        foreach (var (links, delay) in new (string, TimeSpan?)[]
        {
            ("direct", null),
            ("through the relay, 0 ms", TimeSpan.Zero),
            (string.Create(CultureInfo.InvariantCulture, $"through the relay, {delayMs} ms each way"), TimeSpan.FromMilliseconds(delayMs)),
        })
        {
            await using var cluster = await FaultCluster.StartAsync(silos, tools, delay).ConfigureAwait(false);
            foreach (var row in await MeasureAsync(cluster, callers, TimeSpan.FromSeconds(seconds)).ConfigureAwait(false))
            {
                var line = $"| {links} | {row} |";
                await log.WriteLineAsync(line).ConfigureAwait(false);
                rows.Add(line);
            }
        }

        Directory.CreateDirectory(outDirectory);
        var path = Path.Combine(outDirectory, "silo-delay.md");
        var text = new StringBuilder()
            .AppendLine("# Silo links with a network's delay")
            .AppendLine()
            .AppendLine(string.Create(CultureInfo.InvariantCulture, $"`dotnet run -c Release --project bench/Cubby.Load -- delay --silos {silos} --delay-ms {delayMs} --seconds {seconds} --callers {callers}` (as root): {silos} silos in network namespaces, clustered through PostgreSQL in another; {Keys:N0} keys of {ValueBytes} B; {callers} callers per measurement (through the door, four to a connection), {seconds:0} s each after {WarmUp.TotalSeconds:0} s of warm-up; the gateway client has no near cache. Silos' CPU is all silos' together, per operation."))
            .AppendLine()
            .AppendLine("| Silo links | Operation | Ops/s | p50 µs | p99 µs | Silos' CPU µs/op |")
            .AppendLine("|---|---|---:|---:|---:|---:|");
        rows.ForEach(row => text.AppendLine(row));
        await File.WriteAllTextAsync(path, text.ToString()).ConfigureAwait(false);
        await log.WriteLineAsync($"Wrote {path}").ConfigureAwait(false);
        return 0;
    }

    private static async Task<List<string>> MeasureAsync(FaultCluster cluster, int callers, TimeSpan measured)
    {
        var services = new ServiceCollection();
        services.AddCubbyClient(options =>
        {
            foreach (var silo in cluster.Silos)
            {
                options.Endpoints.Add(silo.Gateway);
            }
        });
        await using var app = services.BuildServiceProvider();
        var client = app.GetRequiredService<ICubbyClient>();
        // A connection per four callers: the door answers each connection's commands in order, as Redis does.
        var doors = await Task.WhenAll(Enumerable.Range(0, Math.Max(1, callers / CallersPerConnection))
            .Select(_ => ConnectionMultiplexer.ConnectAsync($"{cluster.Silos[0].Address}:{NodeSilo.RespPort}"))).ConfigureAwait(false);
        IDatabase Door(int caller) => doors[caller % doors.Length].GetDatabase();
        var keys = Enumerable.Range(0, Keys).Select(static key => $"delay:{key}").ToArray();
        var value = new byte[ValueBytes];
        foreach (var chunk in keys.Chunk(callers))
        {
            await Task.WhenAll(chunk.Select(key => client.PutAsync(key, value).AsTask())).ConfigureAwait(false);
        }

        var operations = new (string Name, Func<int, string, Task> Run)[]
        {
            ("gateway client Get", async (caller, key) => Found(key, await client.GetAsync(key).ConfigureAwait(false) is not null)),
            ("gateway client Set", (caller, key) => client.PutAsync(key, value).AsTask()),
            ("RESP GET, first silo's door", async (caller, key) => Found(key, !(await Door(caller).StringGetAsync(key).ConfigureAwait(false)).IsNull)),
            ("RESP SET, first silo's door", (caller, key) => Door(caller).StringSetAsync(key, value)),
        };
        var rows = new List<string>();
        try
        {
            foreach (var (name, run) in operations)
            {
                await RunAsync(keys, callers, WarmUp, run).ConfigureAwait(false);
                var cpuBefore = cluster.Silos.Sum(static silo => silo.CpuSeconds);
                var clock = Stopwatch.StartNew();
                var latencies = await RunAsync(keys, callers, measured, run).ConfigureAwait(false);
                var elapsed = clock.Elapsed.TotalSeconds;
                var cpu = cluster.Silos.Sum(static silo => silo.CpuSeconds) - cpuBefore;
                latencies.Sort();
                rows.Add(string.Create(CultureInfo.InvariantCulture, $"{name} | {latencies.Count / elapsed:N0} | {latencies[latencies.Count / 2]:0} | {latencies[(int)(latencies.Count * 0.99)]:0} | {cpu * 1e6 / latencies.Count:0.0}"));
            }
        }
        finally
        {
            foreach (var door in doors)
            {
                await door.DisposeAsync().ConfigureAwait(false);
            }
        }

        return rows;
    }

    private static void Found(string key, bool found)
    {
        if (!found)
        {
            throw new HarnessException($"{key} did not read back");
        }
    }

    /// <summary>Each caller runs <paramref name="run"/> on random keys until <paramref name="duration"/> passed; every call's time in µs.</summary>
    private static async Task<List<double>> RunAsync(string[] keys, int callers, TimeSpan duration, Func<int, string, Task> run)
    {
        var clock = Stopwatch.StartNew();
        var each = await Task.WhenAll(Enumerable.Range(0, callers).Select(caller => Task.Run(async () =>
        {
            var random = new Random(caller);
            var latencies = new List<double>();
            while (clock.Elapsed < duration)
            {
                var started = Stopwatch.GetTimestamp();
                await run(caller, keys[random.Next(keys.Length)]).ConfigureAwait(false);
                latencies.Add(Stopwatch.GetElapsedTime(started).TotalMicroseconds);
            }

            return latencies;
        }))).ConfigureAwait(false);
        return [.. each.SelectMany(static latencies => latencies)];
    }
}
