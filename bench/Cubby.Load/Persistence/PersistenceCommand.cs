using System.Globalization;

namespace Cubby.Load.Persistence;

/// <summary>
/// <c>persistence [--seconds S] [--warmup S] [--entries N] [--flush-interval T] [--parts set,load] [--dir DIR] [--out FILE] [--silo PATH]</c>:
/// what keeping entries on disk costs Cubby (<c>Cubby:Persistence</c>: a snapshot file per shard and a changes file per
/// silo), beside Redis (appendonly everysec, dump.rdb), one server process at a time on loopback.
/// <list type="bullet">
/// <item>SET throughput and cost (<see cref="SetCost"/>): redis-benchmark SETs of 1 KiB values, 64 connections, pipelined
/// 16, against Cubby and Redis each without and with persistence (and Cubby with a changes file that never begins again,
/// which leaves out the snapshots its rolls write): ops/s, p50 and p99, the server process's CPU per SET (the issue's
/// target: Cubby's with persistence at most 1.2× its CPU without), and what it wrote to storage.</item>
/// <item>Load time (<see cref="LoadTimes"/>): each persistent server filled with N distinct keys of 100 B, stopped and
/// started again on its folder, timed until it answers PING and until DBSIZE counts every entry. Cubby after SIGKILL (it
/// replays its changes file onto its snapshots) and after SIGTERM (it wrote every shard whole); with no roll, after
/// SIGKILL (the whole changes file); Redis after SIGKILL from its AOF, from its AOF without rewrites, and from dump.rdb
/// after SAVE.</item>
/// <item>Disk: the bytes of each server's files per entry, after the writes, after a restart, and as snapshots.</item>
/// </list>
/// Writes the tables to the Markdown file (<c>bench/results/persistence.md</c> unless <c>--out</c>, replacing the last
/// run; git keeps the history) and a chart beside it (<c>.svg</c>, when gnuplot is installed).
/// </summary>
internal static class PersistenceCommand
{
    public const string Usage = "persistence [--seconds S (10)] [--warmup S (5)] [--entries N (1000000)] [--flush-interval T (00:00:01)] [--parts set,load (both)] [--dir DIR (the temp folder)] [--out FILE (bench/results/persistence.md)] [--silo PATH]";

    private const string SetPart = "set";
    private const string LoadPart = "load";

    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter log)
    {
        double seconds = 10, warmup = 5;
        var entries = 1_000_000;
        var flushInterval = TimeSpan.FromSeconds(1);
        string[] parts = [SetPart, LoadPart];
        string? siloPath = null, outPath = null, directory = null;
        var known = await CommandOptions.ReadAsync(args, Usage, new Dictionary<string, Action<string>>
        {
            ["--seconds"] = value => seconds = double.Parse(value, CultureInfo.InvariantCulture),
            ["--warmup"] = value => warmup = double.Parse(value, CultureInfo.InvariantCulture),
            ["--entries"] = value => entries = int.Parse(value, CultureInfo.InvariantCulture),
            ["--flush-interval"] = value => flushInterval = TimeSpan.Parse(value, CultureInfo.InvariantCulture),
            ["--parts"] = value => parts = value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries),
            ["--dir"] = value => directory = value,
            ["--out"] = value => outPath = value,
            ["--silo"] = value => siloPath = value,
        }).ConfigureAwait(false);
        if (!known)
        {
            return 2;
        }

        if (parts.FirstOrDefault(static part => part is not (SetPart or LoadPart)) is { } unknown || entries <= 0 || seconds <= 0 || warmup < 0)
        {
            await Console.Error.WriteLineAsync($"bad option values (parts are {SetPart} and {LoadPart}; entries and seconds above 0)\n\n{Usage}").ConfigureAwait(false);
            return 2;
        }

        var tools = Prerequisites.ForSilo(siloPath) with
        {
            RedisServer = ExternalProcess.Which("redis-server") ?? throw new HarnessException("redis-server is not installed (apt-get install redis-server)."),
            RedisBenchmark = ExternalProcess.Which("redis-benchmark") ?? throw new HarnessException("redis-benchmark is not installed (apt-get install redis-tools)."),
        };
        var (_, version, _) = await ExternalProcess.RunAsync(tools.RedisServer, ["--version"], TimeSpan.FromSeconds(10)).ConfigureAwait(false);
        var now = DateTime.Now;
        outPath ??= Path.Combine(RepositoryRoot.Find(), "bench", "results", "persistence.md");
        var work = directory is null
            ? Directory.CreateTempSubdirectory("cubby-persistence-")
            : Directory.CreateDirectory(Path.Combine(directory, $"cubby-persistence-{Environment.ProcessId}"));
        var sets = new List<SetRow>();
        var load = new LoadTimes(tools, work.FullName, entries, log);
        try
        {
            if (parts.Contains(SetPart))
            {
                ServerSetup[] setups = [ServerSetup.CubbyWithout, ServerSetup.CubbyWith(flushInterval), ServerSetup.CubbyWithNoRoll(flushInterval), ServerSetup.RedisWithout, ServerSetup.RedisAppendOnly];
                foreach (var (setup, i) in setups.Select(static (setup, i) => (setup, i)))
                {
                    var folder = Path.Combine(work.FullName, $"set-{i}");
                    sets.Add(await SetCost.MeasureAsync(setup, tools, folder, warmup, seconds, log).ConfigureAwait(false));
                    Directory.Delete(folder, recursive: true);
                }
            }

            if (parts.Contains(LoadPart))
            {
                await load.CubbyAsync(ServerSetup.CubbyWith(flushInterval), graceful: true).ConfigureAwait(false);
                await load.CubbyAsync(ServerSetup.CubbyWithNoRoll(flushInterval), graceful: false).ConfigureAwait(false);
                await load.RedisAsync(ServerSetup.RedisAppendOnly, snapshot: true).ConfigureAwait(false);
                await load.RedisAsync(ServerSetup.RedisAppendOnlyNoRewrite, snapshot: false).ConfigureAwait(false);
            }
        }
        finally
        {
            work.Delete(recursive: true);
        }

        var commandLine = $"dotnet run -c Release --project bench/Cubby.Load -- persistence {string.Join(' ', args)}".TrimEnd();
        var machine = string.Create(CultureInfo.InvariantCulture,
            $"{now:yyyy-MM-dd}, {Environment.MachineName}: {LinuxProcess.CpuModel()}, {Environment.ProcessorCount} cores; Redis {version.Split(' ').FirstOrDefault(static word => word.StartsWith("v=", StringComparison.Ordinal))?[2..] ?? version.Trim()}");
        var report = new PersistenceReport(commandLine, machine, seconds, warmup, entries, sets, load.Loads, load.Disk);
        var markdown = report.Markdown();
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(outPath))!);
        await File.WriteAllTextAsync(outPath, markdown).ConfigureAwait(false);
        var svgPath = Path.ChangeExtension(outPath, ".svg");
        if (tools.Gnuplot is { } gnuplot)
        {
            await PersistenceChart.WriteAsync(report, gnuplot, svgPath).ConfigureAwait(false);
        }

        await log.WriteLineAsync($"\n{markdown}\nWrote {outPath}{(tools.Gnuplot is null ? " (no gnuplot: no chart)" : $" and {svgPath}")}").ConfigureAwait(false);
        return load.Loads.All(static row => row.Complete) ? 0 : 1;
    }
}
