namespace Cubby.Tests.Infrastructure;

/// <summary>
/// A <see cref="TimeProvider"/> whose clock only moves when a test calls <see cref="Advance"/> or <see cref="SetUtcNow"/>.
/// </summary>
/// <remarks>
/// Timers made by <see cref="CreateTimer"/> fire only while the clock is moved: synchronously, on the thread that moves
/// it, in order of due time (ties in the order they were scheduled), and never under the provider's lock, so a callback
/// may create, change or dispose timers, or move the clock again. While a callback runs, <see cref="GetUtcNow"/> reads
/// the time it was due. A timer due at or before the current time fires on the next move, even <c>Advance(TimeSpan.Zero)</c>.
/// </remarks>
public sealed class FakeTimeProvider : TimeProvider
{
    public static readonly DateTimeOffset DefaultStartTime = new(2026, 1, 1, 0, 0, 0, TimeSpan.Zero);

    private readonly Lock _gate = new();
    private readonly List<FakeTimer> _scheduled = [];
    private DateTimeOffset _utcNow;

    // Where the clock stands once every move under way has finished; concurrent advances add up from here.
    private DateTimeOffset _targetNow;
    private long _nextScheduleOrder;

    public FakeTimeProvider()
        : this(DefaultStartTime)
    {
    }

    public FakeTimeProvider(DateTimeOffset startTime)
    {
        StartTime = startTime.ToUniversalTime();
        _utcNow = StartTime;
        _targetNow = StartTime;
    }

    /// <summary>The time the clock started at.</summary>
    public DateTimeOffset StartTime { get; }

    public override TimeZoneInfo LocalTimeZone => TimeZoneInfo.Utc;

    /// <summary>Timestamps count 100 ns ticks of the fake clock, so elapsed times are exact.</summary>
    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override DateTimeOffset GetUtcNow()
    {
        lock (_gate)
        {
            return _utcNow;
        }
    }

    public override long GetTimestamp() => GetUtcNow().UtcTicks;

    /// <summary>
    /// Moves the clock forward by <paramref name="delta"/>, firing every timer that falls due on the way.
    /// Advances made at the same time from several threads add up.
    /// </summary>
    public void Advance(TimeSpan delta)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(delta, TimeSpan.Zero);
        DateTimeOffset target;
        lock (_gate)
        {
            target = _targetNow + delta;
            _targetNow = target;
        }

        MoveTo(target);
    }

    /// <summary>Moves the clock forward to <paramref name="value"/>, firing every timer that falls due on the way.</summary>
    public void SetUtcNow(DateTimeOffset value)
    {
        value = value.ToUniversalTime();
        lock (_gate)
        {
            if (value < _utcNow)
            {
                throw new ArgumentOutOfRangeException(nameof(value), value, $"The fake clock cannot go back from {_utcNow:O}.");
            }

            if (value > _targetNow)
            {
                _targetNow = value;
            }
        }

        MoveTo(value);
    }

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        ArgumentNullException.ThrowIfNull(callback);
        var timer = new FakeTimer(this, callback, state);
        timer.Change(dueTime, period);
        return timer;
    }

    private void MoveTo(DateTimeOffset target)
    {
        while (true)
        {
            TimerCallback callback;
            object? state;
            lock (_gate)
            {
                FakeTimer? next = NextDueBy(target);
                if (next is null)
                {
                    if (target > _utcNow)
                    {
                        _utcNow = target;
                    }

                    return;
                }

                if (next.DueTime > _utcNow)
                {
                    _utcNow = next.DueTime;
                }

                if (next.Period > TimeSpan.Zero)
                {
                    Schedule(next, Later(next.DueTime, next.Period));
                }
                else
                {
                    _scheduled.Remove(next);
                }

                callback = next.Callback;
                state = next.State;
            }

            callback(state);
        }
    }

    private FakeTimer? NextDueBy(DateTimeOffset target)
    {
        FakeTimer? next = null;
        foreach (FakeTimer timer in _scheduled)
        {
            if (timer.DueTime <= target
                && (next is null || timer.DueTime < next.DueTime
                    || (timer.DueTime == next.DueTime && timer.ScheduleOrder < next.ScheduleOrder)))
            {
                next = timer;
            }
        }

        return next;
    }

    private void Schedule(FakeTimer timer, DateTimeOffset dueTime)
    {
        timer.DueTime = dueTime;
        timer.ScheduleOrder = _nextScheduleOrder++;
    }

    // A due time past the calendar's end never comes, rather than overflowing.
    private static DateTimeOffset Later(DateTimeOffset time, TimeSpan delta) =>
        delta >= DateTimeOffset.MaxValue - time ? DateTimeOffset.MaxValue : time + delta;

    private static void ValidateInterval(TimeSpan value, string paramName)
    {
        if (value < TimeSpan.Zero && value != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(paramName, value, "A timer interval must be non-negative or Timeout.InfiniteTimeSpan.");
        }
    }

    private sealed class FakeTimer(FakeTimeProvider owner, TimerCallback callback, object? state) : ITimer
    {
        private bool _disposed;

        public TimerCallback Callback { get; } = callback;

        public object? State { get; } = state;

        // The fields below are read and written only under the owner's lock.
        public DateTimeOffset DueTime { get; set; }

        public TimeSpan Period { get; private set; }

        public long ScheduleOrder { get; set; }

        public bool Change(TimeSpan dueTime, TimeSpan period)
        {
            ValidateInterval(dueTime, nameof(dueTime));
            ValidateInterval(period, nameof(period));
            lock (owner._gate)
            {
                if (_disposed)
                {
                    return false;
                }

                owner._scheduled.Remove(this);
                Period = period == Timeout.InfiniteTimeSpan ? TimeSpan.Zero : period;
                if (dueTime != Timeout.InfiniteTimeSpan)
                {
                    owner.Schedule(this, Later(owner._utcNow, dueTime));
                    owner._scheduled.Add(this);
                }

                return true;
            }
        }

        public void Dispose()
        {
            lock (owner._gate)
            {
                _disposed = true;
                owner._scheduled.Remove(this);
            }
        }

        public ValueTask DisposeAsync()
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
