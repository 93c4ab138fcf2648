using System.Diagnostics.Metrics;
using Cubby.Client.Diagnostics;

namespace Cubby.Client.NearCaching;

/// <summary>
/// The near cache's counts, read by observable instruments on the <c>Cubby.Client</c> meter: hits, misses, invalidated
/// keys (a shard or a whole silo counts one), kept values replaced by pushed ones, and the bytes and entries kept. Hits and misses are striped
/// (<see cref="StripedCounter"/>): they are counted on every read.
/// </summary>
internal sealed class NearCacheMetrics : IDisposable
{
    /// <summary>The meter's name, for OpenTelemetry's <c>AddMeter</c> and <c>dotnet-counters</c>.</summary>
    public const string MeterName = "Cubby.Client";

    private readonly Meter _meter;
    private readonly StripedCounter _hits = new();
    private readonly StripedCounter _misses = new();
    private long _invalidations;
    private long _updates;

    public NearCacheMetrics(IMeterFactory? meters)
    {
        _meter = meters?.Create(MeterName) ?? new Meter(MeterName);
        _meter.CreateObservableCounter("cubby.client.near_cache.hits", () => Hits, "{read}", "Reads served from the near cache.");
        _meter.CreateObservableCounter("cubby.client.near_cache.misses", () => Misses, "{read}", "Reads the near cache could not serve.");
        _meter.CreateObservableCounter("cubby.client.near_cache.invalidations", () => Invalidations, "{invalidation}", "Keys, shards or silos the silos said changed.");
        _meter.CreateObservableCounter("cubby.client.near_cache.updates", () => Updates, "{update}", "Kept values the silos replaced with a change's new value.");
    }

    public long Hits => _hits.Value;

    public long Misses => _misses.Value;

    public long Invalidations => Volatile.Read(ref _invalidations);

    public long Updates => Volatile.Read(ref _updates);

    public void Hit() => _hits.Increment();

    public void Miss() => _misses.Increment();

    public void Invalidated(long count) => Interlocked.Add(ref _invalidations, count);

    public void Updated() => Interlocked.Increment(ref _updates);

    /// <summary>Reports the size of <paramref name="cache"/>.</summary>
    public void Observe(NearCache cache)
    {
        _meter.CreateObservableGauge("cubby.client.near_cache.bytes", () => cache.Bytes, "By", "Bytes of values and keys the near cache keeps.");
        _meter.CreateObservableGauge("cubby.client.near_cache.entries", () => cache.Count, "{entry}", "Entries the near cache keeps.");
    }

    public void Dispose() => _meter.Dispose();
}
