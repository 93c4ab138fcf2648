using System.Globalization;
using Cubby.Load.Measurement;
using StackExchange.Redis;

namespace Cubby.Load.Workloads;

/// <summary>Runs redis-benchmark for one test and reads its <c>--csv</c> line.</summary>
internal static class RedisBenchmarkRunner
{
    // The warm-up pass: a tenth of the measured requests, and at least enough for every key of the default key count.
    private const int WarmupShare = 10;
    private const int MinimumWarmupRequests = 20_000;

    // A fresh server's warm-up, per operation, one pass unpipelined and one pipelining 16 (each path has its own hot
    // code): about 10 s in all, after which a .NET server's runtime has finished recompiling its hot paths. Measured on a
    // silo: 400,000 requests in, its CPU per pipelined operation was still twice what it settled at; after 1,000,000
    // pipelined SETs and GETs it no longer moved (2026-11-28: the first run of pipelined GETs after 400,000 warm-up
    // requests cost 5.1 µs of CPU per GET, the next four 2.2-2.7 µs).
    private static readonly RedisBenchmarkShape[] ServerWarmupPasses =
    [
        new(Clients: 64, Pipeline: 1, Requests: 200_000, QuickRequests: 20_000),
        new(Clients: 64, Pipeline: 16, Requests: 1_000_000, QuickRequests: 20_000),
    ];

    /// <summary>
    /// Runs SET then GET at 64 connections, unmeasured, unpipelined and then pipelined, on a server just started, so that
    /// no workload pays for the server's own warm-up (a .NET server's JIT tiering, Cubby's activation of its shards). Every
    /// server gets the same.
    /// </summary>
    public static async Task WarmUpAsync(ServerSession session, ToolSet tools, HarnessOptions options)
    {
        foreach (var pass in ServerWarmupPasses)
        {
            var requests = options.Quick ? pass.QuickRequests : pass.Requests;
            foreach (var test in new[] { "set", "get" })
            {
                var arguments = Arguments(session.Probe.Port, test, options, pass, requests);
                var (exitCode, output, errors) = await ExternalProcess.RunAsync(tools.RedisBenchmark, arguments, TimeSpan.FromMinutes(2)).ConfigureAwait(false);
                if (exitCode != 0)
                {
                    throw new HarnessException($"redis-benchmark {string.Join(' ', arguments)} (warm-up) exited with {exitCode}:\n{ExternalProcess.Tail(output + errors)}");
                }
            }
        }
    }

    public static async Task<Sample> RunAsync(WorkloadSpec workload, ServerSession session, ToolSet tools, HarnessOptions options, int round)
    {
        var shape = workload.Shape!;
        var probe = session.Probe;
        if (workload.Operation == CacheOperation.Get)
        {
            await FillAsync(session.Control, options).ConfigureAwait(false);
        }

        var test = workload.Operation == CacheOperation.Set ? "set" : "get";
        var requests = options.Quick ? shape.QuickRequests : shape.Requests;
        string[] Arguments(int count) => RedisBenchmarkRunner.Arguments(probe.Port, test, options, shape, count);

        // Unmeasured, on every server alike, after the server's own warm-up: this workload's connections and keys.
        await ExternalProcess.RunAsync(tools.RedisBenchmark, Arguments(Math.Max(requests / WarmupShare, MinimumWarmupRequests)), TimeSpan.FromMinutes(1)).ConfigureAwait(false);
        var arguments = Arguments(requests);
        await probe.BeginAsync().ConfigureAwait(false);
        var (exitCode, output, errors) = await ExternalProcess.RunAsync(tools.RedisBenchmark, arguments, TimeSpan.FromMinutes(options.Quick ? 1 : 3)).ConfigureAwait(false);
        var (cpu, resident, gc) = await probe.EndAsync().ConfigureAwait(false);
        if (exitCode != 0 || !TryParse(output, test, out var result))
        {
            throw new HarnessException($"redis-benchmark {string.Join(' ', arguments)} exited with {exitCode} and no CSV line for {test.ToUpperInvariant()}:\n{ExternalProcess.Tail(output + errors)}");
        }

        return new Sample(round, result.Rps, result.P50, result.P95, result.P99, null, requests, 0, 0, requests / result.Rps, resident, cpu, gc, null);
    }

    /// <summary>
    /// Reads redis-benchmark 7's CSV: a header <c>"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",
    /// "p95_latency_ms","p99_latency_ms","max_latency_ms"</c> and one line per test; columns are found by name.
    /// </summary>
    public static bool TryParse(string csv, string test, out (double Rps, double P50, double P95, double P99) result)
    {
        result = default;
        string[]? header = null;
        foreach (var line in csv.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            if (!line.StartsWith('"'))
            {
                continue;
            }

            var cells = line.Split(',').Select(cell => cell.Trim('"')).ToArray();
            if (cells[0] == "test")
            {
                header = cells;
            }
            else if (header is not null && string.Equals(cells[0], test, StringComparison.OrdinalIgnoreCase))
            {
                double Cell(string name)
                {
                    var index = Array.IndexOf(header, name);
                    return index > 0 && index < cells.Length && double.TryParse(cells[index], NumberStyles.Float, CultureInfo.InvariantCulture, out var value) ? value : double.NaN;
                }

                result = (Cell("rps"), Cell("p50_latency_ms"), Cell("p95_latency_ms"), Cell("p99_latency_ms"));
                return result.Rps > 0 && !double.IsNaN(result.P99);
            }
        }

        return false;
    }

    /// <summary>
    /// Writes every key redis-benchmark's GET asks for (<c>key:</c> and 12 digits, as its <c>-r</c> makes them) with a
    /// value like its own, so every GET hits whatever ran before.
    /// </summary>
    private static async Task FillAsync(ConnectionMultiplexer connection, HarnessOptions options)
    {
        const int Batch = 500;
        var value = new byte[options.ValueBytes];
        value.AsSpan().Fill((byte)'x');
        var database = connection.GetDatabase();
        var writes = new Task<bool>[Batch];
        for (var start = 0; start < options.Keys; start += Batch)
        {
            var count = Math.Min(Batch, options.Keys - start);
            for (var i = 0; i < count; i++)
            {
                writes[i] = database.StringSetAsync(string.Create(CultureInfo.InvariantCulture, $"key:{start + i:D12}"), value);
            }

            foreach (var written in await Task.WhenAll(writes.AsSpan(0, count).ToArray()).ConfigureAwait(false))
            {
                if (!written)
                {
                    throw new HarnessException("SET before redis-benchmark GET was not stored.");
                }
            }
        }
    }

    private static string[] Arguments(int port, string test, HarnessOptions options, RedisBenchmarkShape shape, int count) =>
    [
        "-h", "127.0.0.1", "-p", Text(port), "-t", test, "-d", Text(options.ValueBytes), "-r", Text(options.Keys),
        "-c", Text(shape.Clients), "-P", Text(shape.Pipeline), "-n", Text(count), "--csv",
    ];

    private static string Text(int value) => value.ToString(CultureInfo.InvariantCulture);
}
