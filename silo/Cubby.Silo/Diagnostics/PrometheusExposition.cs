using System.Globalization;
using System.Text;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Diagnostics;

/// <summary>
/// Writes the silo's metrics in the Prometheus text exposition format (version 0.0.4), for <c>GET /metrics</c>. It
/// reads the same counters as <see cref="CubbyMeter"/>, under Prometheus-style names (<c>cubby_commands_total</c>).
/// </summary>
internal static class PrometheusExposition
{
    public const string ContentType = "text/plain; version=0.0.4; charset=utf-8";

    // Every fourth latency bucket: bounds that double, from ~0.7 µs to ~3.4 s.
    private const int FirstBoundBucket = 11;
    private const int LastBoundBucket = 99;

    public static string Write(SiloRuntime silo)
    {
        var text = new StringBuilder(4096);
        var statistics = silo.Statistics;
        var (expired, evicted) = silo.Figures.Removed();
        WriteCommands(text, silo.Metrics);
        Single(text, "cubby_hits_total", "counter", "Key lookups that found the key.", statistics.Hits);
        Single(text, "cubby_misses_total", "counter", "Key lookups that did not find the key.", statistics.Misses);
        Single(text, "cubby_evictions_total", "counter", "Entries removed to stay within the memory budget.", evicted);
        Single(text, "cubby_expirations_total", "counter", "Entries removed because they expired.", expired);
        Single(text, "cubby_entries", "gauge", "Entries this silo holds.", silo.Figures.Entries);
        Single(text, "cubby_memory_used_bytes", "gauge", "Bytes of entries charged to the memory budget.", silo.Figures.MemoryUsed);
        Single(text, "cubby_memory_limit_bytes", "gauge", "The memory budget (Cubby:MaxMemoryBytes).", silo.Figures.MemoryLimit);
        Header(text, "cubby_migrated_shards_total", "counter", "Shards that moved to other silos with their entries (sent) and arrived here (received).");
        Sample(text, "cubby_migrated_shards_total{direction=\"sent\"}", silo.Figures.ShardsMigrated.Sent);
        Sample(text, "cubby_migrated_shards_total{direction=\"received\"}", silo.Figures.ShardsMigrated.Received);
        Single(text, "cubby_relayed_total", "counter", "Commands relayed through Orleans to a shard active on another silo, or moving.", statistics.RelayedCalls);
        Single(text, "cubby_relay_retries_total", "counter", "Relayed commands tried again because their shard was moving or its silo unreachable.", statistics.RelayRetries);
        Single(text, "cubby_connections", "gauge", "Open RESP connections.", silo.Clients.Count);
        Single(text, "cubby_connections_received_total", "counter", "RESP connections accepted since start.", statistics.ConnectionsReceived);
        if (silo.Figures.Persistence is { } files)
        {
            Single(text, "cubby_persistence_written_bytes_total", "counter", "Bytes written to the persistence folder: snapshots and changes.", files.BytesWritten);
            Single(text, "cubby_persistence_flushes_total", "counter", "Flushes that put the changes file's records on the disk.", files.Flushes);
            Header(text, "cubby_persistence_flush_time_seconds_total", "counter", "Time spent writing and flushing the changes file, in all.");
            Sample(text, "cubby_persistence_flush_time_seconds_total", files.Flushing.TotalSeconds);
            Single(text, "cubby_persistence_failures_total", "counter", "Writes to the persistence folder that failed: changes file flushes and shard snapshots.", files.FlushFailures);
            Header(text, "cubby_persistence_load_time_seconds", "gauge", "How long the silo took to load its folder as it started.");
            Sample(text, "cubby_persistence_load_time_seconds", files.LoadTime.TotalSeconds);
        }

        WriteLatency(text, silo.Metrics);
        return text.ToString();
    }

    private static void WriteCommands(StringBuilder text, CommandMetrics metrics)
    {
        Header(text, "cubby_commands_total", "counter", "Commands run, by command and result (ok or error).");
        for (var command = 0; command < metrics.Names.Count; command++)
        {
            foreach (var failed in (ReadOnlySpan<bool>)[false, true])
            {
                var count = metrics.Count(command, failed);
                if (count != 0)
                {
                    text.Append(CultureInfo.InvariantCulture, $"cubby_commands_total{{command=\"{metrics.Names[command]}\",result=\"{(failed ? "error" : "ok")}\"}} {count}\n");
                }
            }
        }
    }

    private static void WriteLatency(StringBuilder text, CommandMetrics metrics)
    {
        const string Name = "cubby_command_duration_seconds";
        Header(text, Name, "histogram", "How long commands take in the silo, from parsed request to written reply.");
        Span<long> buckets = stackalloc long[LatencyBuckets.Count];
        metrics.CopyLatency(buckets);
        long cumulative = 0;
        var next = 0;
        for (var bound = FirstBoundBucket; bound <= LastBoundBucket; bound += 4)
        {
            for (; next <= bound; next++)
            {
                cumulative += buckets[next];
            }

            text.Append(CultureInfo.InvariantCulture, $"{Name}_bucket{{le=\"{(decimal)LatencyBuckets.UpperBoundSeconds(bound)}\"}} {cumulative}\n");
        }

        for (; next < buckets.Length; next++)
        {
            cumulative += buckets[next];
        }

        text.Append(CultureInfo.InvariantCulture, $"{Name}_bucket{{le=\"+Inf\"}} {cumulative}\n");
        text.Append(CultureInfo.InvariantCulture, $"{Name}_sum {metrics.ElapsedSeconds:R}\n");
        text.Append(CultureInfo.InvariantCulture, $"{Name}_count {cumulative}\n");
    }

    private static void Single(StringBuilder text, string name, string type, string help, long value)
    {
        Header(text, name, type, help);
        Sample(text, name, value);
    }

    private static void Header(StringBuilder text, string name, string type, string help) =>
        text.Append("# HELP ").Append(name).Append(' ').Append(help).Append("\n# TYPE ").Append(name).Append(' ').Append(type).Append('\n');

    private static void Sample(StringBuilder text, string series, long value) =>
        text.Append(series).Append(' ').Append(value.ToString(CultureInfo.InvariantCulture)).Append('\n');

    private static void Sample(StringBuilder text, string series, double value) =>
        text.Append(series).Append(' ').Append(value.ToString("R", CultureInfo.InvariantCulture)).Append('\n');
}
