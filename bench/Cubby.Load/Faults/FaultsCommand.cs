using System.Diagnostics;
using System.Globalization;

namespace Cubby.Load.Faults;

/// <summary>
/// <c>faults</c>: silos in a <see cref="FaultNetwork"/>, clustered through PostgreSQL in a node of its own, under a random
/// <see cref="FaultSchedule"/> (printed first, with its seed, to replay it) while the <see cref="FaultWorkload"/>'s
/// clients write and read through every silo; then the <see cref="HistoryChecker"/> says what they saw that Cubby does
/// not promise. Exit code 0 when it found nothing, 3 when it found a violation. See docs/faults.md.
/// </summary>
internal static class FaultsCommand
{
    public const string Usage = "faults [--seed N (random)] [--duration SECONDS (120)] [--silos N (3)] [--faults KIND,KIND|all (all: cut,halves,bridge,postgres,loss,pause,kill)] [--registers R (16)] [--settle SECONDS (15)] [--logs DIR] [--silo PATH]";

    /// <summary>Runs the command; <paramref name="stop"/> (SIGINT, SIGTERM) ends it early, with the network and silos taken down.</summary>
    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter log, CancellationToken stop = default)
    {
        int silos = 3, registers = 16, seed = Random.Shared.Next(1, 1_000_000);
        double durationSeconds = 120, settleSeconds = 15;
        string? siloPath = null, logs = null;
        var kinds = FaultSchedule.AllKinds;
        var known = await CommandOptions.ReadAsync(args, Usage, new Dictionary<string, Action<string>>
        {
            ["--seed"] = value => seed = int.Parse(value, CultureInfo.InvariantCulture),
            ["--duration"] = value => durationSeconds = double.Parse(value, CultureInfo.InvariantCulture),
            ["--silos"] = value => silos = int.Parse(value, CultureInfo.InvariantCulture),
            ["--faults"] = value => kinds = FaultSchedule.ParseKinds(value),
            ["--registers"] = value => registers = int.Parse(value, CultureInfo.InvariantCulture),
            ["--settle"] = value => settleSeconds = double.Parse(value, CultureInfo.InvariantCulture),
            ["--silo"] = value => siloPath = value,
            ["--logs"] = value => logs = Directory.CreateDirectory(value).FullName,
        }).ConfigureAwait(false);
        if (!known)
        {
            return 2;
        }

        var schedule = FaultSchedule.Random(seed, silos, TimeSpan.FromSeconds(durationSeconds), kinds);
        await log.WriteLineAsync($"{schedule}\n(replay: faults --seed {seed} --silos {silos} --duration {durationSeconds.ToString(CultureInfo.InvariantCulture)} --faults {string.Join(',', kinds).ToLowerInvariant()})").ConfigureAwait(false);

        await using var cluster = await FaultCluster.StartAsync(silos, Prerequisites.ForSilo(siloPath), logs: logs).ConfigureAwait(false);
        await log.WriteLineAsync($"{silos} silos up in namespaces on {cluster.Network.AddressOf(0)}.., PostgreSQL at {cluster.Postgres.Address}; clients at {cluster.Network.ClientAddress}").ConfigureAwait(false);
        await using var workload = await FaultWorkload.StartAsync(cluster.Silos, registers).ConfigureAwait(false);
        var clock = Stopwatch.StartNew();
        await log.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"   0.0 s  at {DateTime.Now:HH:mm:ss.fff}")).ConfigureAwait(false);
        await Task.Delay(TimeSpan.FromSeconds(5), stop).ConfigureAwait(false);
        for (var i = 0; i < schedule.Steps.Count; i++)
        {
            var step = schedule.Steps[i];
            await log.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"{clock.Elapsed.TotalSeconds,6:0.0} s  step {i + 1}, {step.Kind.ToString().ToLowerInvariant()}: {step}")).ConfigureAwait(false);
            await cluster.ApplyAsync(step).ConfigureAwait(false);
            await Task.Delay(step.Hold, stop).ConfigureAwait(false);
            await cluster.HealAsync(step).ConfigureAwait(false);
            await Task.Delay(step.Gap, stop).ConfigureAwait(false);

            // A silo declared dead stops once it hears so; started again, it joins as a new one.
            if (await cluster.RestartStoppedAsync().ConfigureAwait(false) is { Count: > 0 } restarted)
            {
                await log.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"{clock.Elapsed.TotalSeconds,6:0.0} s  started again: node {string.Join(", node ", restarted)}")).ConfigureAwait(false);
            }
        }

        await log.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"{clock.Elapsed.TotalSeconds,6:0.0} s  schedule done; settling for {settleSeconds:0} s")).ConfigureAwait(false);
        await Task.Delay(TimeSpan.FromSeconds(settleSeconds), stop).ConfigureAwait(false);
        await workload.StopAsync().ConfigureAwait(false);
        var report = await workload.CheckAsync().ConfigureAwait(false);
        await log.WriteLineAsync(Describe(report, clock.Elapsed, Stopwatch.GetTimestamp())).ConfigureAwait(false);
        return report.Passed ? 0 : 3;
    }

    /// <summary>What the checker found; times are given from the schedule's start, <paramref name="elapsed"/> before <paramref name="now"/>.</summary>
    private static string Describe(HistoryReport report, TimeSpan elapsed, long now)
    {
        string At(long timestamp) => string.Create(CultureInfo.InvariantCulture, $"at {(elapsed - Stopwatch.GetElapsedTime(timestamp, now)).TotalSeconds:0.0} s");

        var text = string.Create(
            CultureInfo.InvariantCulture,
            $"""
            {report.Reads} reads, {report.AcknowledgedWrites} acknowledged writes: {report.Stale.Count} stale reads (oldest {report.OldestStale.TotalMilliseconds:0} ms behind), {report.Lost.Count} lost writes
            {report.Increments} acknowledged increments: {report.DuplicateIncrements.Count} duplicate results, counter {report.CounterBehind} behind
            {report.Snapshots} snapshots of the accounts: {report.TornSnapshots.Count} torn; total {report.TotalChange:+0;-0;0} after the faults
            {report.Commits} watched commits: {report.DuplicateCommits.Count} duplicate values, watched key {report.WatchedBehind} behind
            longest without an acknowledged write: {report.LongestWithoutWrite.TotalMilliseconds:0} ms, {At(report.LongestWithoutWriteSince)}
            """);
        foreach (var group in report.Stale.GroupBy(static read => read.Read.Via))
        {
            text += $"\n  stale through {group.Key}: {group.Count()}";
        }

        foreach (var stale in report.Stale.GroupBy(static stale => stale.Read.Register).Select(static group => group.MaxBy(static stale => stale.Behind)!).Take(8))
        {
            text += string.Create(CultureInfo.InvariantCulture, $"\n  stale: register {stale.Read.Register} read {stale.Read.Value} through {stale.Read.Via} {At(stale.Read.Began)}, {stale.Behind.TotalMilliseconds:0} ms after {stale.Newer.Value} was acknowledged through {stale.Newer.Via}");
        }

        foreach (var lost in report.Lost.Take(10))
        {
            text += string.Create(
                CultureInfo.InvariantCulture,
                $"\n  lost: register {lost.Write.Register} acknowledged {lost.Write.Value} through {lost.Write.Via} {At(lost.Write.Acknowledged!.Value)}, read back {lost.ReadBack}; {lost.FirstLost.Value} was acknowledged {At(lost.FirstLost.Acknowledged!.Value)} (sent {At(lost.FirstLost.Sent)})");
        }

        foreach (var torn in report.TornSnapshots.Take(5))
        {
            text += $"\n  torn: the accounts added up to {torn.Total} through {torn.Via} {At(torn.Began)}, answered {At(torn.Answered)}";
        }

        foreach (var (torn, before, moved, suspects) in report.TornExplained)
        {
            text += string.Create(CultureInfo.InvariantCulture, $"\n  torn {At(torn.Began)} (answered {At(torn.Answered)}): [{string.Join(' ', torn.Balances)}]; the last whole one, {(before is null ? "none" : $"{At(before.Began)} (answered {At(before.Answered)}) through {before.Via}: [{string.Join(' ', before.Balances)}]")}; moved: accounts {string.Join(", ", moved)}");
            foreach (var transfer in suspects)
            {
                text += string.Create(CultureInfo.InvariantCulture, $"\n    transfer {transfer.Amount} from {transfer.From} to {transfer.To} through {transfer.Via}, sent {At(transfer.Sent)}, answered {At(transfer.Answered)}: {transfer.Outcome}");
            }
        }

        foreach (var duplicate in report.DuplicateCommits.Take(5))
        {
            text += $"\n  watched: two transactions committed {duplicate}";
        }

        return text;
    }
}
