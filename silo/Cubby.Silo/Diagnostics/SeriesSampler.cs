using Cubby.Diagnostics;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Diagnostics;

/// <summary>
/// Once a second (on the silo's <see cref="TimeProvider"/>) turns the silo's running totals into one
/// <see cref="SeriesPoint"/> of rates, and ranks the busiest slots.
/// </summary>
internal sealed partial class SeriesSampler(SiloRuntime silo, ILogger<SeriesSampler> logger) : BackgroundService
{
    private const int BusiestSlotsShown = 10;

    private readonly SlotActivity _slots = new(silo.Catalog);
    private readonly long[] _latency = new long[LatencyBuckets.Count];
    private readonly long[] _latencyDelta = new long[LatencyBuckets.Count];
    private Totals _last;
    private long _lastTimestamp;

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        _last = ReadTotals();
        _lastTimestamp = silo.Time.GetTimestamp();
        using var timer = new PeriodicTimer(TimeSpan.FromSeconds(1), silo.Time);
        try
        {
            while (await timer.WaitForNextTickAsync(stoppingToken).ConfigureAwait(false))
            {
                try
                {
                    Sample();
                }
                catch (Exception exception) when (exception is not OutOfMemoryException)
                {
                    Log.SampleFailed(logger, exception);
                }
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
            // The silo is stopping.
        }
    }

    private void Sample()
    {
        var now = silo.Time.GetTimestamp();
        var seconds = Math.Max(silo.Time.GetElapsedTime(_lastTimestamp, now).TotalSeconds, 0.001);
        var totals = ReadTotals();
        var lookups = (totals.Hits - _last.Hits) + (totals.Misses - _last.Misses);
        for (var i = 0; i < _latency.Length; i++)
        {
            _latencyDelta[i] = _latency[i];
        }

        silo.Metrics.CopyLatency(_latency);
        for (var i = 0; i < _latency.Length; i++)
        {
            _latencyDelta[i] = _latency[i] - _latencyDelta[i];
        }

        silo.Series.Add(new SeriesPoint(
            silo.Time.GetUtcNow().ToUnixTimeMilliseconds(),
            Rate(totals.Commands - _last.Commands, seconds),
            lookups == 0 ? null : Math.Round((double)(totals.Hits - _last.Hits) / lookups, 4),
            Math.Round(LatencyBuckets.Quantile(_latencyDelta, 0.99) * 1000, 4),
            Rate(totals.Evicted - _last.Evicted, seconds),
            Rate(totals.Expired - _last.Expired, seconds),
            silo.Figures.Entries,
            silo.Figures.MemoryUsed));
        _slots.Sample();
        silo.Series.BusiestSlots = _slots.Busiest(BusiestSlotsShown);
        _last = totals;
        _lastTimestamp = now;
    }

    private Totals ReadTotals()
    {
        var (expired, evicted) = silo.Figures.Removed();
        return new Totals(silo.Metrics.Total(), silo.Statistics.Hits, silo.Statistics.Misses, evicted, expired);
    }

    private static double Rate(long count, double seconds) => Math.Round(Math.Max(count, 0) / seconds, 1);

    private readonly record struct Totals(long Commands, long Hits, long Misses, long Evicted, long Expired);

    private static partial class Log
    {
        [LoggerMessage(LogEvents.SamplingFailed, LogLevel.Warning, "Sampling the silo's activity failed")]
        public static partial void SampleFailed(ILogger logger, Exception exception);
    }
}
