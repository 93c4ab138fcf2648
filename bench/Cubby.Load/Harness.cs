using System.Diagnostics;
using System.Globalization;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using Cubby.Load.Measurement;
using Cubby.Load.Workloads;

namespace Cubby.Load;

/// <summary>
/// Runs every workload against every server. Each round starts every server fresh, then runs each workload on one
/// server after another in an order that rotates from round to round, so noise from other work on the machine falls
/// on all of them alike.
/// </summary>
internal sealed class Harness(HarnessOptions options, ToolSet tools, TextWriter log)
{
    private readonly DotnetWorkloadRunner _dotnet = new(options);
    private readonly Dictionary<(string Workload, ServerKind Server), List<Sample>> _samples = [];

    public async Task<RunReport> RunAsync()
    {
        if (options.PinServer)
        {
            CorePinning.PinThisProcess();
        }

        var clock = Stopwatch.StartNew();
        var loadBefore = LinuxProcess.LoadAverage();
        for (var round = 1; round <= options.Rounds; round++)
        {
            var turn = (round - 1) % options.Servers.Count;
            await RunRoundAsync([.. options.Servers.Skip(turn).Concat(options.Servers.Take(turn))], round).ConfigureAwait(false);
        }

        var rows = new List<ResultRow>();
        foreach (var workload in WorkloadSpec.All)
        {
            foreach (var server in options.Servers.Order())
            {
                if (_samples.TryGetValue((workload.Id, server), out var samples))
                {
                    rows.Add(ResultRow.From(workload.Id, server, workload.Kind == WorkloadKind.RedisBenchmark ? "redis-benchmark" : "dotnet", samples));
                }
            }
        }

        var now = DateTime.Now;
        var info = new RunInfo(
            now.ToString("yyyy-MM-dd", CultureInfo.InvariantCulture),
            Environment.MachineName,
            options.Quick ? "quick" : "full",
            options.Rounds,
            LinuxProcess.CpuModel(),
            Environment.ProcessorCount,
            RuntimeInformation.OSDescription,
            RuntimeInformation.FrameworkDescription,
            tools.RedisVersion,
            tools.GarnetVersion,
            tools.Silo,
            options.ValueBytes,
            options.Keys,
            options.Callers,
            options.Duration.TotalSeconds,
            options.TimeToLiveMs,
            loadBefore,
            LinuxProcess.LoadAverage(),
            Math.Round(clock.Elapsed.TotalSeconds, 1),
            options.SettleAge.TotalSeconds,
            options.PinServer ? $"each server pinned to core {CorePinning.ServerCores}, the load generators to cores {CorePinning.LoadCores}" : null,
            WorkloadSpec.All.ToDictionary(w => w.Id, w => w.Description));
        return new RunReport(info, rows);
    }

    /// <summary>
    /// Starts and warms every server, waits until the youngest is <see cref="HarnessOptions.SettleAge"/> old, then runs
    /// each workload on every server in <paramref name="order"/> before the next workload: a server is measured seconds
    /// after the others, not minutes, so a slow spell on the shared machine falls on one comparison, not on one server.
    /// </summary>
    private async Task RunRoundAsync(IReadOnlyList<ServerKind> order, int round)
    {
        var sessions = new Dictionary<ServerKind, ServerSession>();
        try
        {
            foreach (var kind in order)
            {
                await log.WriteLineAsync($"[round {round}/{options.Rounds}] starting {kind}").ConfigureAwait(false);
                sessions[kind] = await StartWarmAsync(kind).ConfigureAwait(false);
            }

            await SettleAsync(sessions[order[^1]]).ConfigureAwait(false);
            foreach (var workload in WorkloadSpec.All)
            {
                foreach (var kind in order.Where(workload.RunsOn))
                {
                    sessions[kind] = await MeasureOnAsync(workload, kind, sessions[kind], round).ConfigureAwait(false);
                }
            }
        }
        finally
        {
            foreach (var session in sessions.Values)
            {
                session.Dispose();
            }
        }
    }

    /// <summary>Measures <paramref name="workload"/> once on <paramref name="session"/>; returns the session to go on with.</summary>
    private async Task<ServerSession> MeasureOnAsync(WorkloadSpec workload, ServerKind kind, ServerSession session, int round)
    {
        var sample = await MeasureAsync(workload, session, round).ConfigureAwait(false);
        if (session.Server.HasExited || (sample.Error is not null && session.Server.ExitsWithin(TimeSpan.FromSeconds(5))))
        {
            // Something outside the harness may stop a server (another user's cleanup, the OOM killer): say so, start
            // it again, and measure this workload once more on the fresh server.
            await log.WriteLineAsync($"  {kind} died during {workload.Id}; starting it again to repeat {workload.Id}. {session.Server.DescribeExit()}").ConfigureAwait(false);
            session.Dispose();
            session = await StartWarmAsync(kind).ConfigureAwait(false);
            await SettleAsync(session).ConfigureAwait(false);
            sample = await MeasureAsync(workload, session, round).ConfigureAwait(false) with { ServerRestarted = true };
            if (session.Server.HasExited)
            {
                throw new HarnessException($"{kind} died again during {workload.Id} in round {round}: {session.Server.DescribeExit()}");
            }
        }

        if (!_samples.TryGetValue((workload.Id, kind), out var samples))
        {
            _samples[(workload.Id, kind)] = samples = [];
        }

        samples.Add(sample);
        await log.WriteLineAsync(Describe(kind, workload, sample)).ConfigureAwait(false);
        return session;
    }

    private async Task<ServerSession> StartWarmAsync(ServerKind kind)
    {
        var session = await ServerSession.StartAsync(kind, tools, options.PinServer).ConfigureAwait(false);
        try
        {
            await RedisBenchmarkRunner.WarmUpAsync(session, tools, options).ConfigureAwait(false);
            return session;
        }
        catch
        {
            session.Dispose();
            throw;
        }
    }

    /// <summary>Waits, idle, until <paramref name="session"/>'s server is <see cref="HarnessOptions.SettleAge"/> old.</summary>
    private async Task SettleAsync(ServerSession session)
    {
        if (options.SettleAge - session.Age is { Ticks: > 0 } settling)
        {
            await Task.Delay(settling).ConfigureAwait(false);
        }
    }

    private async Task<Sample> MeasureAsync(WorkloadSpec workload, ServerSession session, int round)
    {
        try
        {
            return workload.Kind == WorkloadKind.RedisBenchmark
                ? await RedisBenchmarkRunner.RunAsync(workload, session, tools, options, round).ConfigureAwait(false)
                : await _dotnet.RunAsync(workload, session.Probe, round).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is HarnessException or IOException or SocketException or InvalidOperationException or TimeoutException or Client.CubbyException)
        {
            return new Sample(round, 0, 0, null, 0, null, 0, 0, 0, 0, session.Server.ResidentBytes, 0, null, exception.Message);
        }
    }

    private static string Describe(ServerKind kind, WorkloadSpec workload, Sample sample) =>
        string.Create(CultureInfo.InvariantCulture, $"  {kind,-6} {workload.Id,-16} {sample.OpsPerSecond,10:N0} ops/s  p50 {sample.P50Ms,6:0.000} ms  p99 {sample.P99Ms,7:0.000} ms  rss {sample.ResidentBytes / 1048576.0,6:0} MiB  cpu {sample.CpuSeconds,5:0.00} s")
        + (sample.Gc is { } gc ? string.Create(CultureInfo.InvariantCulture, $"  gc {gc.Gen0}/{gc.Gen1}/{gc.Gen2} {gc.PauseMs:0.0} ms") : string.Empty)
        + (sample.ServerRestarted ? "  (server restarted)" : string.Empty)
        + (sample.Error is null ? string.Empty : $"  ERROR {sample.Error}");
}
