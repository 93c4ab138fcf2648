using System.Diagnostics.Metrics;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Diagnostics;

/// <summary>
/// The silo's <see cref="System.Diagnostics.Metrics"/> instruments, on the meter named <see cref="Name"/> (subscribe to
/// it by name: OpenTelemetry's <c>AddMeter("Cubby")</c>, <c>dotnet-counters monitor --counters Cubby</c>). Apart from
/// the latency histogram they are observable: they read counters the silo keeps anyway when a listener collects, so
/// serving a command costs no instrument call.
/// </summary>
internal sealed class CubbyMeter : IHostedService, IDisposable
{
    /// <summary>The meter's name.</summary>
    public const string Name = "Cubby";

    private readonly Meter _meter;
    private readonly SiloRuntime _silo;

    public CubbyMeter(IMeterFactory meters, SiloRuntime silo)
    {
        _silo = silo;
        _meter = meters.Create(Name);
        var statistics = silo.Statistics;
        _meter.CreateObservableCounter("cubby.commands", ObserveCommands, "{command}", "Commands run, by command and result (ok or error).");
        _meter.CreateObservableCounter("cubby.hits", () => statistics.Hits, "{lookup}", "Key lookups that found the key.");
        _meter.CreateObservableCounter("cubby.misses", () => statistics.Misses, "{lookup}", "Key lookups that did not find the key.");
        _meter.CreateObservableCounter("cubby.evictions", () => silo.Figures.Removed().Evicted, "{entry}", "Entries removed to stay within the memory budget.");
        _meter.CreateObservableCounter("cubby.expirations", () => silo.Figures.Removed().Expired, "{entry}", "Entries removed because they expired.");
        _meter.CreateObservableGauge("cubby.entries", () => silo.Figures.Entries, "{entry}", "Entries this silo holds.");
        _meter.CreateObservableGauge("cubby.memory.used", () => silo.Figures.MemoryUsed, "By", "Bytes of entries charged to the memory budget.");
        _meter.CreateObservableCounter("cubby.migrated.shards", ObserveMigrations, "{shard}", "Shards that moved to other silos with their entries (direction=sent) and arrived here (direction=received).");
        _meter.CreateObservableCounter("cubby.relayed", () => statistics.RelayedCalls, "{call}", "Commands relayed through Orleans to a shard active on another silo, or moving.");
        _meter.CreateObservableUpDownCounter("cubby.connections", () => (long)silo.Clients.Count, "{connection}", "Open RESP connections."); 
        if (silo.Figures.Persistence is not null)
        {
            var figures = silo.Figures;
            _meter.CreateObservableCounter("cubby.persistence.written", () => figures.Persistence?.BytesWritten ?? 0, "By", "Bytes written to the persistence folder: snapshots and changes.");
            _meter.CreateObservableCounter("cubby.persistence.flushes", () => figures.Persistence?.Flushes ?? 0, "{flush}", "Flushes that put the changes file's records on the disk.");
            _meter.CreateObservableCounter("cubby.persistence.flush.time", () => figures.Persistence?.Flushing.TotalSeconds ?? 0, "s", "Time spent writing and flushing the changes file, in all.");
            _meter.CreateObservableCounter("cubby.persistence.failures", () => figures.Persistence?.FlushFailures ?? 0, "{failure}", "Writes to the persistence folder that failed: changes file flushes and shard snapshots.");
            _meter.CreateObservableGauge("cubby.persistence.load.time", () => figures.Persistence?.LoadTime.TotalSeconds ?? 0, "s", "How long the silo took to load its folder as it started.");
        }

        silo.Metrics.Duration = _meter.CreateHistogram<double>("cubby.command.duration", "s", "How long commands take in the silo, from parsed request to written reply.");
    }

    /// <summary>Nothing to start: the instruments exist once the meter is built, which hosting it makes happen at start.</summary>
    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public void Dispose()
    {
        _silo.Metrics.Duration = null;
        _meter.Dispose();
    }

    private IEnumerable<Measurement<long>> ObserveCommands()
    {
        var metrics = _silo.Metrics;
        for (var command = 0; command < metrics.Names.Count; command++)
        {
            foreach (var failed in (bool[])[false, true])
            {
                var count = metrics.Count(command, failed);
                if (count != 0)
                {
                    yield return new Measurement<long>(count, new("command", metrics.Names[command]), new("result", failed ? "error" : "ok"));
                }
            }
        }
    }

    private IEnumerable<Measurement<long>> ObserveMigrations()
    {
        var (sent, received) = _silo.Figures.ShardsMigrated;
        yield return new Measurement<long>(sent, new KeyValuePair<string, object?>("direction", "sent"));
        yield return new Measurement<long>(received, new KeyValuePair<string, object?>("direction", "received"));
    }
}
