using System.Diagnostics;
using System.Globalization;
using System.Text;
using Cubby.Client;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Load.Cluster;

/// <summary>
/// <c>cluster [--silos 1,3] [--seconds N] [--callers N] [--tls] [--one-gateway] [--silo PATH]</c>: one gateway client's
/// Gets of 1 KiB values against 1 silo process, then against several in one Development cluster, each silo's gateway
/// given to the client; with <c>--tls</c> each cluster is measured with plain links and then with TLS on the silo and
/// gateway links (<c>Cubby:Clustering:Tls</c>, one self-signed certificate shared by the silos and trusted by the
/// client); with <c>--one-gateway</c> each is measured again with only the first silo's gateway given, learning the
/// others off (<c>Cubby:Client:LearnGateways</c>) and then on.
/// Reports ops/s, the client's and the silos' CPU per Get, the silos' share of the machine's cores, the Gets per
/// coalesced batch, and the Gets that did not run on the silo they were sent to (a batch found the shard elsewhere, or the
/// call went to its grain, which Orleans forwards to the shard's silo).
/// </summary>
internal static class ClusterCommand
{
    private const int Keys = 10_000;
    private const int ValueBytes = 1_024;

    /// <summary>Long enough for shards to settle on their home silos after a join and for the tiered JIT to finish.</summary>
    private static readonly TimeSpan WarmUp = TimeSpan.FromSeconds(8);

    public const string Usage = "cluster [--silos 1,3] [--seconds N (8)] [--callers N (64)] [--tls] [--one-gateway] [--silo PATH]";

    /// <summary>Which gateways the client is given, and whether it learns the rest.</summary>
    private enum Gateways
    {
        All,
        OneNotLearning,
        OneLearning,
    }

    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter log)
    {
        int[] siloCounts = [1, 3];
        var seconds = 8;
        var callers = 64;
        string? siloPath = null;
        bool[] tlsModes = [false];
        Gateways[] gatewayModes = [Gateways.All];
        var known = await CommandOptions.ReadAsync(args, Usage, new Dictionary<string, Action<string>>
        {
            ["--silos"] = value => siloCounts = CommandOptions.Counts(value),
            ["--seconds"] = value => seconds = int.Parse(value, CultureInfo.InvariantCulture),
            ["--callers"] = value => callers = int.Parse(value, CultureInfo.InvariantCulture),
            ["--silo"] = value => siloPath = value,
            ["--tls"] = _ => tlsModes = [false, true],
            ["--one-gateway"] = _ => gatewayModes = [Gateways.All, Gateways.OneNotLearning, Gateways.OneLearning],
        }, flags: ["--tls", "--one-gateway"]).ConfigureAwait(false);
        if (!known)
        {
            return 2;
        }

        var tools = Prerequisites.ForSilo(siloPath);
        var report = new StringBuilder()
            .AppendLine("| Silo processes | Links | Gateways given | Gets/s | Client CPU µs/Get | Silos' CPU µs/Get | Silos' cores | Gets per batch | Not run where sent |")
            .AppendLine("|---:|---|---|---:|---:|---:|---:|---:|---:|");
        using var certificate = tlsModes.Contains(true) ? new SharedCertificate() : null;
        foreach (var count in siloCounts)
        {
            foreach (var tls in tlsModes)
            {
                foreach (var gateways in count > 1 ? gatewayModes : [Gateways.All])
                {
                    var row = await MeasureAsync(tools, count, callers, TimeSpan.FromSeconds(seconds), tls ? certificate : null, gateways).ConfigureAwait(false);
                    await log.WriteLineAsync(row).ConfigureAwait(false);
                    report.AppendLine(row);
                }
            }
        }

        await log.WriteLineAsync($"\n{callers} callers, {Keys:N0} keys of {ValueBytes} B, {seconds} s measured after {WarmUp.TotalSeconds:0} s of warm-up:\n\n{report}").ConfigureAwait(false);
        return 0;
    }

    private static async Task<string> MeasureAsync(ToolSet tools, int count, int callers, TimeSpan measured, SharedCertificate? tls, Gateways gateways)
    {
        string[] links = tls is null ? [] : ["--Cubby:Clustering:Tls:CertificatePath", tls.CertificatePath, "--Cubby:Clustering:Tls:KeyPath", tls.KeyPath];
        var silos = await DevelopmentCluster.StartAsync(tools, count, links).ConfigureAwait(false);
        try
        {
            await using var services = new ServiceCollection()
                .AddCubbyClient(o =>
                {
                    foreach (var silo in gateways == Gateways.All ? silos : silos.Take(1))
                    {
                        o.Endpoints.Add($"127.0.0.1:{silo.GatewayPort}");
                    }

                    o.LearnGateways = gateways != Gateways.OneNotLearning;
                    o.Tls.AuthorityPath = tls?.CertificatePath;
                })
                .Services.BuildServiceProvider();
            var client = services.GetRequiredService<ICubbyClient>();
            var keys = Enumerable.Range(0, Keys).Select(static key => $"cluster:{key}").ToArray();
            var value = new byte[ValueBytes];
            foreach (var chunk in keys.Chunk(callers))
            {
                await Task.WhenAll(chunk.Select(key => client.PutAsync(key, value).AsTask())).ConfigureAwait(false);
            }

            await ReadAsync(client, keys, callers, WarmUp).ConfigureAwait(false);
            var batchers = ((CubbyClient)client).Batches?.Batchers.ToArray() ?? [];
            long Sum(Func<Cubby.Client.Shards.GatewayBatcher, long> counter) => batchers.Sum(counter);
            var (batchesBefore, sentBefore, runBefore) = (Sum(static b => b.BatchesSent), Sum(static b => b.OperationsSent), Sum(static b => b.OperationsRun));
            var siloCpuBefore = silos.Sum(static silo => silo.CpuSeconds);
            var clientCpuBefore = Process.GetCurrentProcess().TotalProcessorTime;
            var clock = Stopwatch.StartNew();
            var gets = await ReadAsync(client, keys, callers, measured).ConfigureAwait(false);
            var elapsed = clock.Elapsed.TotalSeconds;
            var clientCpu = (Process.GetCurrentProcess().TotalProcessorTime - clientCpuBefore).TotalSeconds;
            var siloCpu = silos.Sum(static silo => silo.CpuSeconds) - siloCpuBefore;
            var batches = Sum(static b => b.BatchesSent) - batchesBefore;
            var sent = Sum(static b => b.OperationsSent) - sentBefore;
            var run = Sum(static b => b.OperationsRun) - runBefore;
            return string.Create(CultureInfo.InvariantCulture,
                $"| {count} | {(tls is null ? "plain" : "TLS")} | {Describe(gateways)} | {gets / elapsed:N0} | {clientCpu * 1e6 / gets:F1} | {siloCpu * 1e6 / gets:F1} | {siloCpu / elapsed:F2} | {(double)sent / Math.Max(1, batches):F1} | {100.0 * (gets - run) / gets:F2} % |");
        }
        finally
        {
            foreach (var silo in silos)
            {
                silo.Dispose();
            }
        }
    }

    private static string Describe(Gateways gateways) => gateways switch
    {
        Gateways.All => "all",
        Gateways.OneNotLearning => "one, not learning",
        _ => "one, learning",
    };

    /// <summary>Each caller reads random keys until <paramref name="duration"/> has passed; returns the Gets made.</summary>
    private static async Task<long> ReadAsync(ICubbyClient client, string[] keys, int callers, TimeSpan duration)
    {
        long gets = 0;
        var clock = Stopwatch.StartNew();
        await Task.WhenAll(Enumerable.Range(0, callers).Select(caller => Task.Run(async () =>
        {
            var random = new Random(caller);
            long made = 0;
            while (clock.Elapsed < duration)
            {
                var key = keys[random.Next(keys.Length)];
                if (await client.GetAsync(key).ConfigureAwait(false) is not { Length: ValueBytes })
                {
                    throw new HarnessException($"{key} did not read back");
                }

                made++;
            }

            Interlocked.Add(ref gets, made);
        }))).ConfigureAwait(false);
        return gets;
    }
}
