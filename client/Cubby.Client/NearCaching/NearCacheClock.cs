namespace Cubby.Client.NearCaching;

/// <summary>
/// The near cache's clock, in milliseconds. On the system clock it reads <see cref="Environment.TickCount64"/>, a coarse
/// monotonic clock that costs a fifth of a <see cref="System.Diagnostics.Stopwatch"/> read on a hit, and may lag real
/// time by up to its tick; <see cref="Resolution"/> is taken off every deadline so the lag never serves a value late.
/// Any other <see cref="TimeProvider"/> (a fake one in tests) is read exactly.
/// </summary>
internal sealed class NearCacheClock(TimeProvider time)
{
    private readonly bool _coarse = time == TimeProvider.System;

    /// <summary>How far the clock may lag: 10 ms covers the coarse clock's 1–4 ms ticks.</summary>
    public long Resolution => _coarse ? 10 : 0;

    public TimeProvider Time => time;

    public long NowMilliseconds => _coarse ? Environment.TickCount64 : time.GetTimestamp() * 1000 / time.TimestampFrequency;
}
