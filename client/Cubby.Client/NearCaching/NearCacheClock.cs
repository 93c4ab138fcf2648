using System.Diagnostics;

namespace Cubby.Client.NearCaching;

/// <summary>
/// The near cache's clock, in milliseconds. Deadlines (leases, expiry) are set and decided on the precise clock
/// (<see cref="Now"/>), but a precise read costs 23 ns on this kind of VM, more than the rest of a hit. So a hit first
/// reads <see cref="Environment.TickCount64"/> (5 ns), a coarse clock that lags the precise one by up to a kernel tick
/// or two (16 ms at most, measured here under full load): when that reading is more than <see cref="GuardBand"/> from
/// the deadline either way, it decides; only within the band is the precise clock read. Any other
/// <see cref="TimeProvider"/> (a fake one in tests) is read exactly, every time.
/// </summary>
internal sealed class NearCacheClock
{
    /// <summary>How far the coarse clock may be from the precise one for its answer to stand: ten ticks at 100 Hz.</summary>
    public const long GuardBand = 100;

    private readonly TimeProvider _time;
    private readonly bool _coarse;
    private readonly long _offset;
    private readonly long _guard;

    public NearCacheClock(TimeProvider time)
    {
        _time = time;
        _coarse = time == TimeProvider.System;
        _offset = _coarse ? Now - Environment.TickCount64 : 0;
        _guard = _coarse ? GuardBand : 0;
    }

    public TimeProvider Time => _time;

    /// <summary>The precise time in milliseconds.</summary>
    public long Now => _coarse ? Milliseconds(Stopwatch.GetTimestamp(), Stopwatch.Frequency) : Milliseconds(_time.GetTimestamp(), _time.TimestampFrequency);

    /// <summary>The coarse time, on the precise clock's scale; exact on a fake clock.</summary>
    public long Approximately => _coarse ? Environment.TickCount64 + _offset : Now;

    /// <summary>Whether <paramref name="deadline"/> is still ahead, given <paramref name="approximately"/> from <see cref="Approximately"/>.</summary>
    public bool Before(long approximately, long deadline) =>
        approximately < deadline - _guard || (approximately < deadline + _guard && Now < deadline);

    // Dividing first: nanosecond timestamps times 1000 would overflow after 106 days of uptime.
    private static long Milliseconds(long timestamp, long frequency) =>
        frequency % 1000 == 0 ? timestamp / (frequency / 1000) : (long)(timestamp * (1000.0 / frequency));
}
