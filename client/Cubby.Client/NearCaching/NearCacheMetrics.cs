using System.Diagnostics.Metrics;

namespace Cubby.Client.NearCaching;

/// <summary>
/// The near cache's instruments, on the <c>Cubby.Client</c> meter: hits, misses, invalidated keys (a shard or a whole
/// silo counts one), and the bytes and entries kept.
/// </summary>
internal sealed class NearCacheMetrics : IDisposable
{
    /// <summary>The meter's name, for OpenTelemetry's <c>AddMeter</c> and <c>dotnet-counters</c>.</summary>
    public const string MeterName = "Cubby.Client";

    private readonly Meter _meter;
    private readonly Counter<long> _hits;
    private readonly Counter<long> _misses;
    private readonly Counter<long> _invalidations;
    private long _hitCount;
    private long _missCount;
    private long _invalidationCount;

    public NearCacheMetrics(IMeterFactory? meters)
    {
        _meter = meters?.Create(MeterName) ?? new Meter(MeterName);
        _hits = _meter.CreateCounter<long>("cubby.client.near_cache.hits", "{read}", "Reads served from the near cache.");
        _misses = _meter.CreateCounter<long>("cubby.client.near_cache.misses", "{read}", "Reads the near cache could not serve.");
        _invalidations = _meter.CreateCounter<long>("cubby.client.near_cache.invalidations", "{invalidation}", "Keys, shards or silos the silos said changed.");
    }

    public long Hits => Volatile.Read(ref _hitCount);

    public long Misses => Volatile.Read(ref _missCount);

    public long Invalidations => Volatile.Read(ref _invalidationCount);

    public void Hit()
    {
        Interlocked.Increment(ref _hitCount);
        _hits.Add(1);
    }

    public void Miss()
    {
        Interlocked.Increment(ref _missCount);
        _misses.Add(1);
    }

    public void Invalidated(long count)
    {
        Interlocked.Add(ref _invalidationCount, count);
        _invalidations.Add(count);
    }

    /// <summary>Reports the size of <paramref name="cache"/>.</summary>
    public void Observe(NearCache cache)
    {
        _meter.CreateObservableGauge("cubby.client.near_cache.bytes", () => cache.Bytes, "By", "Bytes of values and keys the near cache keeps.");
        _meter.CreateObservableGauge("cubby.client.near_cache.entries", () => cache.Count, "{entry}", "Entries the near cache keeps.");
    }

    public void Dispose() => _meter.Dispose();
}
