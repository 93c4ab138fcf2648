using System.Globalization;
using System.Text;

namespace Cubby.Load.Persistence;

/// <summary>What the <c>persistence</c> command found, as it goes (one line a row) and as Markdown tables with what each shows.</summary>
internal sealed record PersistenceReport(
    string CommandLine, string Machine, double Seconds, double WarmupSeconds, int Entries,
    IReadOnlyList<SetRow> Sets, IReadOnlyList<LoadRow> Loads, IReadOnlyList<DiskRow> Disk)
{
    /// <summary>What an entry of the load test holds: its key (<c>key:</c> and 12 digits) and its value.</summary>
    public const int EntryBytes = 16 + LoadTimes.ValueBytes;

    /// <summary>The target for Cubby's CPU per SET with persistence, as a multiple of its CPU without.</summary>
    public const double CpuTarget = 1.2;

    public static string Line(LoadRow row) => string.Create(CultureInfo.InvariantCulture,
        $"{row.Server}, stopped by {row.StoppedBy}, on {row.Files.Files} ({row.Files.Megabytes}): PING after {row.UntilPing.TotalSeconds:0.00} s, DBSIZE {row.Entries:N0} after {row.UntilLoaded.TotalSeconds:0.00} s, {row.CpuSeconds:0.0} s CPU{(row.ReportedSeconds is { } reported ? $", it reports {reported:0.00} s" : string.Empty)}");

    public static string Line(DiskRow row) => string.Create(CultureInfo.InvariantCulture,
        $"{row.Server}, {row.When}: {row.Use.Files}, {row.Use.Megabytes}, {row.BytesPerEntry:N0} B/entry");

    public string Markdown()
    {
        var text = new StringBuilder();
        text.AppendLine(CultureInfo.InvariantCulture, $"# Persistence: what Cubby's changes file and snapshots cost, beside Redis's AOF and RDB ({Machine})")
            .AppendLine()
            .AppendLine(CultureInfo.InvariantCulture, $"Command: `{CommandLine}`")
            .AppendLine()
            .AppendLine("One server process at a time on loopback, each on a fresh temporary folder of its own: Cubby a single silo (Localhost clustering), Redis with `--appendonly yes --appendfsync everysec` or `--save \"\" --appendonly no`. CPU is the server process's utime + stime from /proc (for Redis, with the AOF-rewrite forks it reaped: cutime + cstime), storage writes its `write_bytes` from /proc/PID/io.");
        if (Sets.Count > 0)
        {
            text.AppendLine()
                .AppendLine("## SET throughput and CPU per SET")
                .AppendLine()
                .AppendLine(CultureInfo.InvariantCulture, $"`redis-benchmark -t set -c {SetCost.Connections} -P {SetCost.Pipeline} -d {SetCost.ValueBytes} -r {SetCost.Keys}`, about {Seconds:0.#} s measured after an unmeasured warm-up of about {WarmupSeconds:0.#} s on the same server (which also writes the keys, so the measured SETs replace values).")
                .AppendLine()
                .Append(SetTable())
                .AppendLine()
                .AppendLine(SetSummary());
        }

        if (Loads.Count > 0)
        {
            text.AppendLine()
                .AppendLine("## Load time")
                .AppendLine()
                .AppendLine(CultureInfo.InvariantCulture, $"Each persistent server filled with exactly {Entries:N0} distinct keys (`key:` and 12 digits) of {LoadTimes.ValueBytes} random bytes (a pipelined StackExchange.Redis writer, then DBSIZE checked), left until its files stopped changing, stopped, and started again on the same folder; timed from just before its process starts until it answers PING and until DBSIZE counts every entry (polled every 20 ms). \"No roll\" / \"no rewrite\": Cubby with `--Cubby:Persistence:ChangesFileMinBytes` 16 GiB and Redis with `--auto-aof-rewrite-percentage 0`, so the whole log is replayed. The first row of each server is its start on the empty folder.")
                .AppendLine()
                .Append(LoadTable())
                .AppendLine()
                .AppendLine(LoadSummary());
        }

        if (Disk.Count > 0)
        {
            text.AppendLine()
                .AppendLine("## Disk")
                .AppendLine()
                .AppendLine(CultureInfo.InvariantCulture, $"The files of the load test, measured once the server's files had settled; Cubby: its whole folder (snapshot per shard, changes files), Redis: `appendonlydir` (base, incr, manifest) or `dump.rdb`. Each entry holds {EntryBytes} B of key and value.")
                .AppendLine()
                .Append(DiskTable())
                .AppendLine()
                .AppendLine(DiskSummary());
        }

        return text.ToString();
    }

    public string SetTable()
    {
        var table = new StringBuilder()
            .AppendLine("| Server | SET/s | p50 ms | p99 ms | Server CPU µs/SET | of it in forks µs/SET | Written to storage B/SET |")
            .AppendLine("|---|---:|---:|---:|---:|---:|---:|");
        foreach (var row in Sets)
        {
            table.AppendLine(CultureInfo.InvariantCulture,
                $"| {row.Server} | {row.Rps:N0} | {row.P50:0.00} | {row.P99:0.00} | {row.CpuMicrosecondsPerOperation:0.00} | {row.ChildCpuMicrosecondsPerOperation:0.00} | {row.WrittenBytesPerOperation:N0} |");
        }

        return table.ToString();
    }

    public string LoadTable()
    {
        var table = new StringBuilder()
            .AppendLine(CultureInfo.InvariantCulture, $"| Server | Stopped by | Files it starts on | Until PING s | Until DBSIZE = entries s | Entries/s | Server CPU s | Load it reports s |")
            .AppendLine("|---|---|---|---:|---:|---:|---:|---:|");
        foreach (var row in Loads)
        {
            var counted = row.Complete ? string.Empty : string.Create(CultureInfo.InvariantCulture, $" (DBSIZE stayed at {row.Entries:N0} of {row.Expected:N0})");
            var rate = row.Expected == 0 ? "—" : row.EntriesPerSecond.ToString("N0", CultureInfo.InvariantCulture);
            table.AppendLine(CultureInfo.InvariantCulture,
                $"| {row.Server} | {row.StoppedBy} | {row.Files.Files} ({row.Files.Megabytes}) | {row.UntilPing.TotalSeconds:0.00} | {row.UntilLoaded.TotalSeconds:0.00}{counted} | {rate} | {row.CpuSeconds:0.0} | {(row.ReportedSeconds is { } reported ? reported.ToString("0.00", CultureInfo.InvariantCulture) : "—")} |");
        }

        return table.ToString();
    }

    public string DiskTable()
    {
        var table = new StringBuilder()
            .AppendLine("| Server | When | Files | Bytes | B/entry | × key + value |")
            .AppendLine("|---|---|---|---:|---:|---:|");
        foreach (var row in Disk)
        {
            table.AppendLine(CultureInfo.InvariantCulture,
                $"| {row.Server} | {row.When} | {row.Use.Files} | {row.Use.Bytes:N0} | {row.BytesPerEntry:N0} | {row.BytesPerEntry / EntryBytes:0.00}× |");
        }

        return table.ToString();
    }

    private string SetSummary()
    {
        var text = new StringBuilder("What a SET costs each server with and without its log on disk.");
        if (Set(ServerSetup.CubbyWithout.Name) is { } cubbyOff)
        {
            if (Sets.FirstOrDefault(IsCubbyPersistence) is { } cubbyOn)
            {
                var ratio = cubbyOn.CpuMicrosecondsPerOperation / cubbyOff.CpuMicrosecondsPerOperation;
                text.Append(CultureInfo.InvariantCulture,
                    $" Cubby's CPU per SET with persistence is {ratio:0.00}× its CPU without ({cubbyOff.CpuMicrosecondsPerOperation:0.00} → {cubbyOn.CpuMicrosecondsPerOperation:0.00} µs; the issue's target is ≤ {CpuTarget:0.0}×: **{(ratio <= CpuTarget ? "met" : "missed")}**), and its throughput {cubbyOn.Rps / cubbyOff.Rps:0.00}× ({cubbyOff.Rps:N0} → {cubbyOn.Rps:N0} SET/s).");
            }

            if (Sets.FirstOrDefault(static row => row.Server.StartsWith("Cubby, persistence", StringComparison.Ordinal) && IsNoRoll(row.Server)) is { } noRoll)
            {
                text.Append(CultureInfo.InvariantCulture,
                    $" With a changes file that never begins again (appends and flushes, no snapshots written), {noRoll.CpuMicrosecondsPerOperation / cubbyOff.CpuMicrosecondsPerOperation:0.00}× ({noRoll.CpuMicrosecondsPerOperation:0.00} µs).");
            }
        }

        if (Set(ServerSetup.RedisWithout.Name) is { } redisOff && Set(ServerSetup.RedisAppendOnly.Name) is { } redisOn)
        {
            text.Append(CultureInfo.InvariantCulture,
                $" Redis's appendonly everysec costs it {redisOn.CpuMicrosecondsPerOperation / redisOff.CpuMicrosecondsPerOperation:0.00}× its CPU per SET ({redisOff.CpuMicrosecondsPerOperation:0.00} → {redisOn.CpuMicrosecondsPerOperation:0.00} µs) and {redisOn.Rps / redisOff.Rps:0.00}× its throughput.");
        }

        return text.ToString();
    }

    private string LoadSummary()
    {
        var text = new StringBuilder("How long each server takes to serve its entries again after each kind of stop.");
        Compare("after SIGKILL", Load(static row => row.Server.StartsWith("Cubby, persistence", StringComparison.Ordinal) && !IsNoRoll(row.Server) && row.StoppedBy == "SIGKILL"),
            Load(static row => row.Server == ServerSetup.RedisAppendOnly.Name && row.StoppedBy == "SIGKILL"), "its AOF");
        Compare("replaying the whole log", Load(static row => IsNoRoll(row.Server) && row.StoppedBy == "SIGKILL"),
            Load(static row => row.Server == ServerSetup.RedisAppendOnlyNoRewrite.Name && row.StoppedBy == "SIGKILL"), "its AOF without rewrites");
        Compare("from snapshots (after SIGTERM)", Load(static row => row.StoppedBy.StartsWith("SIGTERM", StringComparison.Ordinal)),
            Load(static row => row.Server == ServerSetup.RedisSnapshot.Name), "dump.rdb");
        Compare("on an empty folder", Load(static row => row.Server.StartsWith("Cubby", StringComparison.Ordinal) && row.Expected == 0),
            Load(static row => row.Server.StartsWith("Redis", StringComparison.Ordinal) && row.Expected == 0), "an empty folder");
        if (Loads.FirstOrDefault(static row => !row.Complete) is { } incomplete)
        {
            text.Append(CultureInfo.InvariantCulture, $" {incomplete.Server} after {incomplete.StoppedBy} served {incomplete.Entries:N0} of {incomplete.Expected:N0} entries.");
        }

        return text.ToString();

        void Compare(string what, LoadRow? cubby, LoadRow? redis, string redisFrom)
        {
            if (cubby is not null && redis is not null)
            {
                text.Append(CultureInfo.InvariantCulture,
                    $" Cubby {what}: {cubby.UntilLoaded.TotalSeconds:0.00} s, Redis from {redisFrom}: {redis.UntilLoaded.TotalSeconds:0.00} s ({cubby.UntilLoaded / redis.UntilLoaded:0.0}×).");
            }
        }
    }

    private string DiskSummary()
    {
        var text = new StringBuilder("Bytes on disk per entry, which decide how much a load must read.");
        var cubby = Disk.FirstOrDefault(static row => row.Server.StartsWith("Cubby, persistence", StringComparison.Ordinal) && !IsNoRoll(row.Server) && row.When == "after the writes");
        var redis = Disk.FirstOrDefault(static row => row.Server == ServerSetup.RedisAppendOnly.Name && row.When == "after the writes");
        if (cubby is not null && redis is not null)
        {
            text.Append(CultureInfo.InvariantCulture, $" After the writes: Cubby's folder {cubby.BytesPerEntry:N0} B/entry, Redis's AOF {redis.BytesPerEntry:N0} B/entry.");
        }

        var stopped = Disk.FirstOrDefault(static row => row.When == "after SIGTERM");
        var saved = Disk.FirstOrDefault(static row => row.Server == ServerSetup.RedisSnapshot.Name);
        if (stopped is not null && saved is not null)
        {
            text.Append(CultureInfo.InvariantCulture, $" As snapshots: Cubby's after SIGTERM {stopped.BytesPerEntry:N0} B/entry, Redis's dump.rdb {saved.BytesPerEntry:N0} B/entry.");
        }

        return text.ToString();
    }

    private static bool IsNoRoll(string server) => server.EndsWith("no roll", StringComparison.Ordinal);

    private static bool IsCubbyPersistence(SetRow row) => row.Server.StartsWith("Cubby, persistence", StringComparison.Ordinal) && !IsNoRoll(row.Server);

    private SetRow? Set(string server) => Sets.FirstOrDefault(row => row.Server == server);

    private LoadRow? Load(Func<LoadRow, bool> which) => Loads.FirstOrDefault(which);
}
