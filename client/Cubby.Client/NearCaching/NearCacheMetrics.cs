using System.Diagnostics.Metrics;

namespace Cubby.Client.NearCaching;

/// <summary>
/// The near cache's counts, read by observable instruments on the <c>Cubby.Client</c> meter: hits, misses, invalidated
/// keys (a shard or a whole silo counts one), and the bytes and entries kept. A hit counts on a slot picked by the
/// thread, so threads that hit at once do not fight over one cache line; a reading sums the slots.
/// </summary>
internal sealed class NearCacheMetrics : IDisposable
{
    /// <summary>The meter's name, for OpenTelemetry's <c>AddMeter</c> and <c>dotnet-counters</c>.</summary>
    public const string MeterName = "Cubby.Client";

    private const int Slots = 16;

    // One count per 64-byte line.
    private const int Stride = 8;

    private readonly Meter _meter;
    private readonly long[] _hits = new long[Slots * Stride];
    private readonly long[] _misses = new long[Slots * Stride];
    private long _invalidations;

    public NearCacheMetrics(IMeterFactory? meters)
    {
        _meter = meters?.Create(MeterName) ?? new Meter(MeterName);
        _meter.CreateObservableCounter("cubby.client.near_cache.hits", () => Hits, "{read}", "Reads served from the near cache.");
        _meter.CreateObservableCounter("cubby.client.near_cache.misses", () => Misses, "{read}", "Reads the near cache could not serve.");
        _meter.CreateObservableCounter("cubby.client.near_cache.invalidations", () => Invalidations, "{invalidation}", "Keys, shards or silos the silos said changed.");
    }

    public long Hits => Sum(_hits);

    public long Misses => Sum(_misses);

    public long Invalidations => Volatile.Read(ref _invalidations);

    public void Hit() => Interlocked.Increment(ref _hits[Slot()]);

    public void Miss() => Interlocked.Increment(ref _misses[Slot()]);

    public void Invalidated(long count) => Interlocked.Add(ref _invalidations, count);

    /// <summary>Reports the size of <paramref name="cache"/>.</summary>
    public void Observe(NearCache cache)
    {
        _meter.CreateObservableGauge("cubby.client.near_cache.bytes", () => cache.Bytes, "By", "Bytes of values and keys the near cache keeps.");
        _meter.CreateObservableGauge("cubby.client.near_cache.entries", () => cache.Count, "{entry}", "Entries the near cache keeps.");
    }

    public void Dispose() => _meter.Dispose();

    private static int Slot() => (Environment.CurrentManagedThreadId & (Slots - 1)) * Stride;

    private static long Sum(long[] counts)
    {
        var sum = 0L;
        for (var i = 0; i < counts.Length; i += Stride)
        {
            sum += Volatile.Read(ref counts[i]);
        }

        return sum;
    }
}
