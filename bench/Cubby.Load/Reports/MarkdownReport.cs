using System.Globalization;
using System.Text;
using Cubby.Load.Measurement;

namespace Cubby.Load.Reports;

/// <summary>The run as Markdown: throughput with Cubby/Redis and Cubby/Garnet ratios, latency, resources, GC.</summary>
internal static class MarkdownReport
{
    public static string Write(RunReport report, IReadOnlyList<ServerKind> servers)
    {
        var info = report.Info;
        var text = new StringBuilder();
        void Line(FormattableString line) => text.AppendLine(line.ToString(CultureInfo.InvariantCulture));

        Line($"# Cubby vs Redis vs Garnet: {info.Date} on {info.Machine}");
        Line($"");
        Line($"{(info.Mode == "quick" ? "Quick run (short, not for comparison)" : "Full run")}: {info.Rounds} round(s); each round starts every server fresh{(info.SettleSeconds > 0 ? $", waits until each is {info.SettleSeconds:0} s old" : string.Empty)}, then runs each workload on one server after another, seconds apart, in an order that rotates by round. Cells are medians over rounds with [min–max]. Load generators and server share one machine: {info.Cores} cores, {info.Cpu}{(info.Pinning is null ? string.Empty : "; " + info.Pinning)}; load average {info.LoadAverageBefore} before, {info.LoadAverageAfter} after; {info.TotalSeconds:0} s in all.");
        Line($"");
        Line($"Redis {info.RedisVersion} (`--save '' --appendonly no`), Garnet {info.GarnetVersion} (`--memory 2g --index 64m`), Cubby silo `{Path.GetFileName(info.Silo)}` (workstation GC, default Native store), {info.Runtime}. Values {info.ValueBytes} B, {info.Keys} keys; .NET workloads: {info.Callers} callers on one multiplexed connection, {info.DurationSeconds:0.##} s measured after a warm-up, TTL {info.TimeToLiveMs / 1000} s.");
        Line($"");
        Line($"## Throughput and p99");
        Line($"");
        text.Append("| Workload |");
        foreach (var server in servers)
        {
            text.Append(CultureInfo.InvariantCulture, $" {server} ops/s |");
        }

        var ratios = servers.Where(s => s != ServerKind.Cubby && servers.Contains(ServerKind.Cubby)).ToArray();
        foreach (var peer in ratios)
        {
            text.Append(CultureInfo.InvariantCulture, $" Cubby/{peer} |");
        }

        foreach (var server in servers)
        {
            text.Append(CultureInfo.InvariantCulture, $" {server} p99 ms |");
        }

        text.AppendLine().Append("|---|").Append(string.Concat(Enumerable.Repeat("---:|", (servers.Count * 2) + ratios.Length))).AppendLine();
        foreach (var workload in info.Workloads.Keys)
        {
            text.Append(CultureInfo.InvariantCulture, $"| {workload} |");
            foreach (var server in servers)
            {
                text.Append(CultureInfo.InvariantCulture, $" {Format.Rate(report.Find(workload, server)?.OpsPerSecond)} |");
            }

            foreach (var peer in ratios)
            {
                text.Append(CultureInfo.InvariantCulture, $" {Format.Ratio(report.Find(workload, ServerKind.Cubby)?.OpsPerSecond, report.Find(workload, peer)?.OpsPerSecond)} |");
            }

            foreach (var server in servers)
            {
                text.Append(CultureInfo.InvariantCulture, $" {Format.Number(report.Find(workload, server)?.P99Ms)} |");
            }

            text.AppendLine();
        }

        Line($"");
        Line($"## Server CPU per operation");
        Line($"");
        Line($"The server's user + system CPU time while the workload ran, divided by its operations (medians over rounds): steadier than ops/s on a shared machine. A ratio under 1 means Cubby spends less.");
        Line($"");
        text.Append("| Workload |");
        foreach (var server in servers)
        {
            text.Append(CultureInfo.InvariantCulture, $" {server} µs/op |");
        }

        foreach (var peer in ratios)
        {
            text.Append(CultureInfo.InvariantCulture, $" Cubby/{peer} |");
        }

        text.AppendLine().Append("|---|").Append(string.Concat(Enumerable.Repeat("---:|", servers.Count + ratios.Length))).AppendLine();
        foreach (var workload in info.Workloads.Keys.Where(workload => servers.Count(server => report.Find(workload, server) is not null) > 1))
        {
            text.Append(CultureInfo.InvariantCulture, $"| {workload} |");
            foreach (var server in servers)
            {
                text.Append(CultureInfo.InvariantCulture, $" {Format.Number(report.Find(workload, server)?.CpuMicrosecondsPerOp, "0.0")} |");
            }

            foreach (var peer in ratios)
            {
                text.Append(CultureInfo.InvariantCulture, $" {Format.Ratio(report.Find(workload, ServerKind.Cubby)?.CpuMicrosecondsPerOp, report.Find(workload, peer)?.CpuMicrosecondsPerOp)} |");
            }

            text.AppendLine();
        }

        Line($"");
        Line($"`client-*` and `distcache-*` are Cubby's own client and `IDistributedCache` through the silo's Orleans gateway (Cubby only); `se-*` use StackExchange.Redis on all three servers, so only the server differs; `rediscache-*` are `AddStackExchangeRedisCache` on all three servers (on Cubby through its RESP door's hashes).");
        WriteDistributedCacheComparison(report, Line);
        Line($"");
        Line($"## Latency (ms, medians over rounds)");
        Line($"");
        Line($"redis-benchmark reports p50/p95/p99; the .NET workloads' p50/p99/p99.9 come from the harness's own histogram (within 1.6%).");
        Line($"");
        Line($"| Workload | Server | p50 | p95 | p99 | p99.9 |");
        Line($"|---|---|---:|---:|---:|---:|");
        foreach (var row in report.Rows)
        {
            Line($"| {row.Workload} | {row.Server} | {Format.Number(row.P50Ms)} | {Format.Number(row.P95Ms)} | {Format.Number(row.P99Ms)} | {Format.Number(row.P999Ms)} |");
        }

        Line($"");
        Line($"## Server resources per workload (medians over rounds)");
        Line($"");
        Line($"RSS is VmRSS right after the workload; CPU is the server's user + system time while it ran (/proc/PID/stat).");
        Line($"");
        Line($"| Workload | Server | RSS MiB | CPU s | CPU µs/op |");
        Line($"|---|---|---:|---:|---:|");
        foreach (var row in report.Rows)
        {
            Line($"| {row.Workload} | {row.Server} | {Format.Number(row.ResidentMiB, "0")} | {Format.Number(row.CpuSeconds, "0.00")} | {Format.Number(row.CpuMicrosecondsPerOp, "0.0")} |");
        }

        var gcRows = report.Rows.Where(r => r.Gc is not null).ToArray();
        if (gcRows.Length > 0)
        {
            Line($"");
            Line($"## Cubby GC per workload (from INFO gc; medians over rounds)");
            Line($"");
            Line($"| Workload | gen0 | gen1 | gen2 | pause ms (total) | longest pause ms |");
            Line($"|---|---:|---:|---:|---:|---:|");
            foreach (var row in gcRows)
            {
                var gc = row.Gc!;
                Line($"| {row.Workload} | {gc.Gen0.Median:0} | {gc.Gen1.Median:0} | {gc.Gen2.Median:0} | {gc.PauseMs.Median:0.0} | {gc.MaxPauseMs:0.0} |");
            }
        }

        var failures = report.Rows.SelectMany(r => r.Rounds.Where(s => s.Error is not null || s.ServerRestarted).Select(s => (r, s))).ToArray();
        if (failures.Length > 0)
        {
            Line($"");
            Line($"## Errors and restarts");
            Line($"");
            foreach (var (row, sample) in failures)
            {
                Line($"- round {sample.Round}, {row.Server}, {row.Workload}: {sample.Error ?? "the server died (stopped from outside the harness) and this workload was measured again on a fresh one"}");
            }
        }

        Line($"");
        Line($"## Workloads");
        Line($"");
        foreach (var (id, description) in info.Workloads)
        {
            Line($"- `{id}`: {description}");
        }

        return text.ToString();
    }

    /// <summary>What an ASP.NET Core app sees when it swaps its <c>IDistributedCache</c>: Cubby's against RedisCache on each peer.</summary>
    private static void WriteDistributedCacheComparison(RunReport report, Action<FormattableString> line)
    {
        var peers = new[] { ServerKind.Redis, ServerKind.Garnet }.Where(peer => report.Find("rediscache-get", peer) is not null || report.Find("rediscache-set", peer) is not null).ToArray();
        if (peers.Length == 0 || (report.Find("distcache-get", ServerKind.Cubby) is null && report.Find("distcache-set", ServerKind.Cubby) is null))
        {
            return;
        }

        line($"");
        line($"## IDistributedCache: Cubby's vs AddStackExchangeRedisCache");
        line($"");
        line($"| Operation | Cubby IDistributedCache ops/s | {string.Join(" | ", peers.Select(peer => $"RedisCache on {peer} ops/s | Cubby/RedisCache on {peer}"))} |");
        line($"|---|---:|{string.Concat(Enumerable.Repeat("---:|---:|", peers.Length))}");
        foreach (var operation in new[] { "set", "get" })
        {
            var cubby = report.Find($"distcache-{operation}", ServerKind.Cubby)?.OpsPerSecond;
            var cells = peers.Select(peer => report.Find($"rediscache-{operation}", peer)?.OpsPerSecond).Select(rate => $"{Format.Rate(rate)} | {Format.Ratio(cubby, rate)}");
            line($"| {operation} | {Format.Rate(cubby)} | {string.Join(" | ", cells)} |");
        }
    }
}
