using System.Diagnostics;
using System.Globalization;
using System.Text;
using Cubby.Client;
using Cubby.Load.Cluster;
using Cubby.Load.Workloads;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Load.Replicas;

/// <summary>
/// <c>replicas [--replicas 0,1] [--seconds N] [--callers N] [--out FILE] [--silo PATH]</c>: the cost of
/// <c>Cubby:Replicas</c> on 3 silo processes in one Development cluster, each setting measured on a cluster of its own.
/// Writes of 1 KiB values through one silo's RESP door (redis-benchmark SET, 64 connections, no pipelining) and through
/// the gateway client (PutAsync, 64 callers): ops/s, p99 and the silos' CPU per write. Then a silo is killed with
/// SIGKILL under 8 writers: how long until every writer's writes succeed again, the longest write, the failed writes,
/// and the acknowledged writes that no longer read back.
/// </summary>
internal static class ReplicasCommand
{
    private const int Silos = 3;
    private const int Keys = 10_000;
    private const int ValueBytes = 1_024;
    private const int KillWriters = 8;

    public const string Usage = "replicas [--replicas 0,1] [--seconds N (8)] [--callers N (64)] [--out FILE] [--silo PATH]";

    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter log)
    {
        int[] settings = [0, 1];
        var seconds = 8;
        var callers = 64;
        string? siloPath = null;
        string? outPath = null;
        var known = await CommandOptions.ReadAsync(args, Usage, new Dictionary<string, Action<string>>
        {
            ["--replicas"] = value => settings = CommandOptions.Counts(value),
            ["--seconds"] = value => seconds = int.Parse(value, CultureInfo.InvariantCulture),
            ["--callers"] = value => callers = int.Parse(value, CultureInfo.InvariantCulture),
            ["--silo"] = value => siloPath = value,
            ["--out"] = value => outPath = value,
        }).ConfigureAwait(false);
        if (!known)
        {
            return 2;
        }

        var tools = Prerequisites.ForSilo(siloPath);
        var benchmark = ExternalProcess.Which("redis-benchmark") ?? throw new HarnessException("redis-benchmark is not installed (apt-get install redis-tools).");
        var duration = TimeSpan.FromSeconds(seconds);
        var writes = new StringBuilder()
            .AppendLine("| Replicas | Path | Writes/s | p99 ms | Silos' CPU µs/write |")
            .AppendLine("|---:|---|---:|---:|---:|");
        var kills = new StringBuilder()
            .AppendLine("| Replicas | Writes acknowledged | Writes succeeding again after | Longest write | Failed writes | Acknowledged writes lost |")
            .AppendLine("|---:|---:|---:|---:|---:|---:|");
        foreach (var replicas in settings)
        {
            var silos = await DevelopmentCluster.StartAsync(tools, Silos, ["--Cubby:Replicas", replicas.ToString(CultureInfo.InvariantCulture), "--Logging:LogLevel:Default", "Warning"]).ConfigureAwait(false);
            try
            {
                await using var services = new ServiceCollection()
                    .AddCubbyClient(o =>
                    {
                        foreach (var silo in silos)
                        {
                            o.Endpoints.Add($"127.0.0.1:{silo.GatewayPort}");
                        }
                    })
                    .Services.BuildServiceProvider();
                var client = services.GetRequiredService<ICubbyClient>();
                var door = await DoorAsync(benchmark, silos, replicas, callers).ConfigureAwait(false);
                await log.WriteLineAsync(door).ConfigureAwait(false);
                writes.AppendLine(door);
                var gateway = await GatewayAsync(client, silos, replicas, callers, duration).ConfigureAwait(false);
                await log.WriteLineAsync(gateway).ConfigureAwait(false);
                writes.AppendLine(gateway);
                var kill = await KillAsync(client, silos, replicas).ConfigureAwait(false);
                await log.WriteLineAsync(kill).ConfigureAwait(false);
                kills.AppendLine(kill);
            }
            finally
            {
                foreach (var silo in silos)
                {
                    silo.Dispose();
                }
            }
        }

        var report = $"""
            {Silos} silo processes in one Development cluster, {Keys:N0} keys of {ValueBytes} B. Writes: {callers} connections or callers, through silo 1's RESP door (redis-benchmark SET -P 1) and through the gateway client (PutAsync, {seconds} s). Kill: {KillWriters} client writers, silo 2 killed with SIGKILL.

            {writes}
            {kills}
            """;
        await log.WriteLineAsync("\n" + report).ConfigureAwait(false);
        if (outPath is not null)
        {
            await File.WriteAllTextAsync(outPath, report).ConfigureAwait(false);
        }

        return 0;
    }

    private static async Task<string> DoorAsync(string benchmark, ServerProcess[] silos, int replicas, int connections)
    {
        var requests = 150_000;
        string[] Arguments(int count) => ["-p", silos[0].Port.ToString(CultureInfo.InvariantCulture), "-t", "set", "-n", count.ToString(CultureInfo.InvariantCulture), "-c", connections.ToString(CultureInfo.InvariantCulture), "-d", ValueBytes.ToString(CultureInfo.InvariantCulture), "-r", Keys.ToString(CultureInfo.InvariantCulture), "--csv"];
        await ExternalProcess.RunAsync(benchmark, Arguments(requests / 5), TimeSpan.FromMinutes(2)).ConfigureAwait(false);
        var cpuBefore = silos.Sum(static silo => silo.CpuSeconds);
        var (exitCode, output, errors) = await ExternalProcess.RunAsync(benchmark, Arguments(requests), TimeSpan.FromMinutes(3)).ConfigureAwait(false);
        var cpu = silos.Sum(static silo => silo.CpuSeconds) - cpuBefore;
        if (exitCode != 0 || !RedisBenchmarkRunner.TryParse(output, "set", out var result))
        {
            throw new HarnessException($"redis-benchmark exited with {exitCode}:\n{ExternalProcess.Tail(output + errors)}");
        }

        return string.Create(CultureInfo.InvariantCulture, $"| {replicas} | RESP door | {result.Rps:N0} | {result.P99:F2} | {cpu * 1e6 / requests:F1} |");
    }

    private static async Task<string> GatewayAsync(ICubbyClient client, ServerProcess[] silos, int replicas, int callers, TimeSpan duration)
    {
        var target = new ClientWrites(client, new WorkloadData("replicas", Keys, ValueBytes, 0));
        await ClosedLoop.RunAsync(target, CacheOperation.Set, callers, Keys, TimeSpan.FromSeconds(2)).ConfigureAwait(false);
        var cpuBefore = silos.Sum(static silo => silo.CpuSeconds);
        var phase = await ClosedLoop.RunAsync(target, CacheOperation.Set, callers, Keys, duration).ConfigureAwait(false);
        var cpu = silos.Sum(static silo => silo.CpuSeconds) - cpuBefore;
        if (phase.Errors > 0)
        {
            throw new HarnessException($"{phase.Errors} client writes failed: {phase.FirstError}");
        }

        return string.Create(CultureInfo.InvariantCulture, $"| {replicas} | gateway client | {phase.OperationsPerSecond:N0} | {phase.Latency.ValueAt(0.99) / 1e6:F2} | {cpu * 1e6 / phase.Operations:F1} |");
    }

    /// <summary>
    /// Kills silo 2 under <see cref="KillWriters"/> writers, each writing keys of its own that it never writes again; after
    /// 20 s, reads every acknowledged key back through the client and counts those that are gone.
    /// </summary>
    private static async Task<string> KillAsync(ICubbyClient client, ServerProcess[] silos, int replicas)
    {
        using var stop = new CancellationTokenSource();
        var clock = Stopwatch.StartNew();
        var killedAt = TimeSpan.MaxValue;
        var writers = Enumerable.Range(0, KillWriters).Select(writer => Task.Run(async () =>
        {
            var acknowledged = new List<string>();
            var (failed, longest, lastTrouble, written) = (0, TimeSpan.Zero, TimeSpan.Zero, 0L);
            for (var i = 0; !stop.IsCancellationRequested; i++)
            {
                var key = $"kill:{writer}:{i}";
                var started = clock.Elapsed;
                try
                {
                    await client.PutAsync(key, Encoding.UTF8.GetBytes(key)).ConfigureAwait(false);
                    acknowledged.Add(key);
                    written++;
                }
                catch (Exception exception) when (exception is CubbyException or TimeoutException)
                {
                    failed++;
                    lastTrouble = clock.Elapsed;
                }

                var took = clock.Elapsed - started;
                longest = took > longest ? took : longest;
                if (took > TimeSpan.FromMilliseconds(200))
                {
                    lastTrouble = clock.Elapsed;
                }
            }

            return (Acknowledged: acknowledged, Failed: failed, Longest: longest, LastTrouble: lastTrouble, Written: written);
        })).ToArray();

        await Task.Delay(TimeSpan.FromSeconds(3)).ConfigureAwait(false);
        killedAt = clock.Elapsed;
        silos[1].Dispose();
        await Task.Delay(TimeSpan.FromSeconds(20)).ConfigureAwait(false);
        await stop.CancelAsync().ConfigureAwait(false);
        var results = await Task.WhenAll(writers).ConfigureAwait(false);

        var lost = 0;
        foreach (var chunk in results.SelectMany(static result => result.Acknowledged).Chunk(1_000))
        {
            var read = await client.GetManyAsync(chunk).ConfigureAwait(false);
            lost += chunk.Where((key, i) => read[i] is null || Encoding.UTF8.GetString(read[i]!) != key).Count();
        }

        var recovered = results.Max(static result => result.LastTrouble) - killedAt;
        var acknowledgedKeys = results.Sum(static result => result.Acknowledged.Count);
        return string.Create(CultureInfo.InvariantCulture,
            $"| {replicas} | {results.Sum(static result => result.Written):N0} | {Math.Max(0, recovered.TotalSeconds):F1} s | {results.Max(static result => result.Longest).TotalMilliseconds:N0} ms | {results.Sum(static result => result.Failed)} | {lost} of {acknowledgedKeys:N0} keys |");
    }

    /// <summary>Client writes of the workload's keys through an already connected client.</summary>
    private sealed class ClientWrites(ICubbyClient client, WorkloadData data) : ICacheTarget
    {
        public ICacheCaller CreateCaller() => new Caller(client, data);

        public void Dispose()
        {
        }

        private sealed class Caller(ICubbyClient client, WorkloadData data) : ICacheCaller
        {
            public async ValueTask SetAsync(int key) => await client.PutAsync(data.Keys[key], data.Value).ConfigureAwait(false);

            public async ValueTask<bool> GetAsync(int key) => await client.GetAsync(data.Keys[key]).ConfigureAwait(false) is not null;
        }
    }
}
