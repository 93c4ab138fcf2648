namespace Cubby.Tests.Infrastructure;

public sealed class FakeTimeProviderTests
{
    private static readonly DateTimeOffset Start = new(2026, 1, 1, 0, 0, 0, TimeSpan.Zero);

    [Fact]
    public void Clock_starts_at_2026_by_default_in_utc()
    {
        var time = new FakeTimeProvider();

        Assert.Equal(Start, time.GetUtcNow());
        Assert.Equal(TimeSpan.Zero, time.GetUtcNow().Offset);
        Assert.Same(TimeZoneInfo.Utc, time.LocalTimeZone);
        Assert.Equal(Start, time.GetLocalNow());
    }

    [Fact]
    public void Start_time_is_settable()
    {
        var start = new DateTimeOffset(2030, 6, 15, 12, 0, 0, TimeSpan.FromHours(2));
        var time = new FakeTimeProvider(start);

        Assert.Equal(start, time.GetUtcNow());
        Assert.Equal(start, time.StartTime);
    }

    [Fact]
    public void Advance_moves_the_clock_and_timestamps_together()
    {
        var time = new FakeTimeProvider();
        long before = time.GetTimestamp();

        time.Advance(TimeSpan.FromMilliseconds(1500));

        Assert.Equal(Start.AddMilliseconds(1500), time.GetUtcNow());
        Assert.Equal(TimeSpan.FromMilliseconds(1500), time.GetElapsedTime(before));
        Assert.Equal(1.5, (double)(time.GetTimestamp() - before) / time.TimestampFrequency);
    }

    [Fact]
    public void Clock_does_not_move_by_itself()
    {
        var time = new FakeTimeProvider();
        long timestamp = time.GetTimestamp();

        Thread.Sleep(20);

        Assert.Equal(Start, time.GetUtcNow());
        Assert.Equal(timestamp, time.GetTimestamp());
    }

    [Fact]
    public void Clock_cannot_go_backwards()
    {
        var time = new FakeTimeProvider();
        time.Advance(TimeSpan.FromSeconds(10));

        Assert.Throws<ArgumentOutOfRangeException>(() => time.Advance(TimeSpan.FromTicks(-1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => time.SetUtcNow(Start));
        Assert.Equal(Start.AddSeconds(10), time.GetUtcNow());
    }

    [Fact]
    public void Timer_fires_only_once_its_due_time_is_reached()
    {
        var time = new FakeTimeProvider();
        int fired = 0;
        using ITimer timer = time.CreateTimer(_ => fired++, null, TimeSpan.FromSeconds(5), Timeout.InfiniteTimeSpan);

        time.Advance(TimeSpan.FromSeconds(4));
        Assert.Equal(0, fired);

        time.Advance(TimeSpan.FromSeconds(1));
        Assert.Equal(1, fired);

        time.Advance(TimeSpan.FromHours(1));
        Assert.Equal(1, fired);
    }

    [Fact]
    public void Timers_fire_in_due_order_seeing_their_own_due_time()
    {
        var time = new FakeTimeProvider();
        var fired = new List<(string Name, DateTimeOffset At)>();
        void Record(object? state) => fired.Add(((string)state!, time.GetUtcNow()));

        using ITimer late = time.CreateTimer(Record, "late", TimeSpan.FromSeconds(30), Timeout.InfiniteTimeSpan);
        using ITimer early = time.CreateTimer(Record, "early", TimeSpan.FromSeconds(10), Timeout.InfiniteTimeSpan);
        using ITimer tieFirst = time.CreateTimer(Record, "tie-first", TimeSpan.FromSeconds(20), Timeout.InfiniteTimeSpan);
        using ITimer tieSecond = time.CreateTimer(Record, "tie-second", TimeSpan.FromSeconds(20), Timeout.InfiniteTimeSpan);

        time.Advance(TimeSpan.FromMinutes(1));

        Assert.Equal(
            [("early", Start.AddSeconds(10)), ("tie-first", Start.AddSeconds(20)), ("tie-second", Start.AddSeconds(20)), ("late", Start.AddSeconds(30))],
            fired);
        Assert.Equal(Start.AddMinutes(1), time.GetUtcNow());
    }

    [Fact]
    public void Callbacks_run_synchronously_on_the_advancing_thread()
    {
        var time = new FakeTimeProvider();
        int? callbackThread = null;
        using ITimer timer = time.CreateTimer(_ => callbackThread = Environment.CurrentManagedThreadId, null, TimeSpan.FromSeconds(1), Timeout.InfiniteTimeSpan);

        time.Advance(TimeSpan.FromSeconds(1));

        Assert.Equal(Environment.CurrentManagedThreadId, callbackThread);
    }

    [Fact]
    public void Periodic_timer_fires_once_per_period_crossed()
    {
        var time = new FakeTimeProvider();
        var firedAt = new List<DateTimeOffset>();
        using ITimer timer = time.CreateTimer(_ => firedAt.Add(time.GetUtcNow()), null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(2));

        time.Advance(TimeSpan.FromSeconds(6));

        Assert.Equal([Start.AddSeconds(1), Start.AddSeconds(3), Start.AddSeconds(5)], firedAt);

        time.Advance(TimeSpan.FromSeconds(1));
        Assert.Equal(4, firedAt.Count);
        Assert.Equal(Start.AddSeconds(7), firedAt[^1]);
    }

    [Fact]
    public void Periodic_timers_interleave_in_due_order()
    {
        var time = new FakeTimeProvider();
        var fired = new List<string>();
        using ITimer every3 = time.CreateTimer(_ => fired.Add("3"), null, TimeSpan.FromSeconds(3), TimeSpan.FromSeconds(3));
        using ITimer every5 = time.CreateTimer(_ => fired.Add("5"), null, TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(5));

        time.Advance(TimeSpan.FromSeconds(10));

        // 3, 5, 6, 9, 10
        Assert.Equal(["3", "5", "3", "3", "5"], fired);
    }

    [Fact]
    public void Change_reschedules_from_the_current_time()
    {
        var time = new FakeTimeProvider();
        var firedAt = new List<DateTimeOffset>();
        using ITimer timer = time.CreateTimer(_ => firedAt.Add(time.GetUtcNow()), null, TimeSpan.FromSeconds(5), Timeout.InfiniteTimeSpan);

        time.Advance(TimeSpan.FromSeconds(3));
        Assert.True(timer.Change(TimeSpan.FromSeconds(10), Timeout.InfiniteTimeSpan));
        time.Advance(TimeSpan.FromSeconds(5));
        Assert.Empty(firedAt);

        time.Advance(TimeSpan.FromSeconds(5));
        Assert.Equal([Start.AddSeconds(13)], firedAt);
    }

    [Fact]
    public void Change_to_infinite_due_time_stops_the_timer()
    {
        var time = new FakeTimeProvider();
        int fired = 0;
        using ITimer timer = time.CreateTimer(_ => fired++, null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));

        time.Advance(TimeSpan.FromSeconds(2));
        Assert.Equal(2, fired);

        Assert.True(timer.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan));
        time.Advance(TimeSpan.FromSeconds(10));
        Assert.Equal(2, fired);
    }

    [Fact]
    public void Timer_created_with_infinite_due_time_waits_for_change()
    {
        var time = new FakeTimeProvider();
        int fired = 0;
        using ITimer timer = time.CreateTimer(_ => fired++, null, Timeout.InfiniteTimeSpan, TimeSpan.FromSeconds(1));

        time.Advance(TimeSpan.FromMinutes(1));
        Assert.Equal(0, fired);

        timer.Change(TimeSpan.FromSeconds(1), Timeout.InfiniteTimeSpan);
        time.Advance(TimeSpan.FromMinutes(1));
        Assert.Equal(1, fired);
    }

    [Fact]
    public void Zero_due_time_fires_on_the_next_advance_even_by_zero()
    {
        var time = new FakeTimeProvider();
        int fired = 0;
        using ITimer timer = time.CreateTimer(_ => fired++, null, TimeSpan.Zero, Timeout.InfiniteTimeSpan);
        Assert.Equal(0, fired);

        time.Advance(TimeSpan.Zero);

        Assert.Equal(1, fired);
    }

    [Fact]
    public void Disposed_timer_never_fires_and_cannot_be_changed()
    {
        var time = new FakeTimeProvider();
        int fired = 0;
        ITimer timer = time.CreateTimer(_ => fired++, null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));

        timer.Dispose();
        time.Advance(TimeSpan.FromSeconds(5));

        Assert.Equal(0, fired);
        Assert.False(timer.Change(TimeSpan.FromSeconds(1), Timeout.InfiniteTimeSpan));
        time.Advance(TimeSpan.FromSeconds(5));
        Assert.Equal(0, fired);
    }

    [Fact]
    public async Task DisposeAsync_stops_the_timer()
    {
        var time = new FakeTimeProvider();
        int fired = 0;
        ITimer timer = time.CreateTimer(_ => fired++, null, TimeSpan.FromSeconds(1), Timeout.InfiniteTimeSpan);

        await timer.DisposeAsync();
        time.Advance(TimeSpan.FromSeconds(5));

        Assert.Equal(0, fired);
    }

    [Fact]
    public void Callback_may_dispose_its_own_periodic_timer()
    {
        var time = new FakeTimeProvider();
        int fired = 0;
        ITimer? timer = null;
        timer = time.CreateTimer(_ => { fired++; timer!.Dispose(); }, null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));

        time.Advance(TimeSpan.FromSeconds(10));

        Assert.Equal(1, fired);
    }

    [Fact]
    public void Callback_may_schedule_a_timer_that_fires_in_the_same_advance()
    {
        var time = new FakeTimeProvider();
        var firedAt = new List<DateTimeOffset>();
        ITimer? inner = null;
        using ITimer outer = time.CreateTimer(
            _ => inner = time.CreateTimer(_ => firedAt.Add(time.GetUtcNow()), null, TimeSpan.FromSeconds(2), Timeout.InfiniteTimeSpan),
            null,
            TimeSpan.FromSeconds(1),
            Timeout.InfiniteTimeSpan);

        time.Advance(TimeSpan.FromSeconds(5));

        Assert.Equal([Start.AddSeconds(3)], firedAt);
        inner!.Dispose();
    }

    [Fact]
    public void Callbacks_run_outside_the_lock_so_other_threads_can_read_the_clock()
    {
        var time = new FakeTimeProvider();
        DateTimeOffset? readByOtherThread = null;
        using ITimer timer = time.CreateTimer(
            _ => readByOtherThread = Task.Run(time.GetUtcNow).Wait(TimeSpan.FromSeconds(5)) ? time.GetUtcNow() : null,
            null,
            TimeSpan.FromSeconds(1),
            Timeout.InfiniteTimeSpan);

        time.Advance(TimeSpan.FromSeconds(1));

        Assert.Equal(Start.AddSeconds(1), readByOtherThread);
    }

    [Fact]
    public void SetUtcNow_fires_due_timers()
    {
        var time = new FakeTimeProvider();
        int fired = 0;
        using ITimer timer = time.CreateTimer(_ => fired++, null, TimeSpan.FromMinutes(1), TimeSpan.FromMinutes(1));

        time.SetUtcNow(Start.AddMinutes(3).AddSeconds(30));

        Assert.Equal(3, fired);
        Assert.Equal(Start.AddMinutes(3).AddSeconds(30), time.GetUtcNow());
    }

    [Fact]
    public async Task Task_Delay_completes_when_the_clock_is_advanced()
    {
        var time = new FakeTimeProvider();
        Task delay = Task.Delay(TimeSpan.FromSeconds(30), time);

        time.Advance(TimeSpan.FromSeconds(29));
        Assert.False(delay.IsCompleted);

        time.Advance(TimeSpan.FromSeconds(1));
        await delay.WaitAsync(TimeSpan.FromSeconds(5), TimeProvider.System);
        Assert.True(delay.IsCompletedSuccessfully);
    }

    [Fact]
    public void Negative_intervals_are_rejected()
    {
        var time = new FakeTimeProvider();

        Assert.Throws<ArgumentOutOfRangeException>(() => time.CreateTimer(_ => { }, null, TimeSpan.FromSeconds(-2), Timeout.InfiniteTimeSpan));
        Assert.Throws<ArgumentOutOfRangeException>(() => time.CreateTimer(_ => { }, null, TimeSpan.Zero, TimeSpan.FromSeconds(-2)));
        Assert.Throws<ArgumentNullException>(() => time.CreateTimer(null!, null, TimeSpan.Zero, TimeSpan.Zero));
    }

    [Fact]
    public void Concurrent_advances_fire_each_timer_exactly_once()
    {
        var time = new FakeTimeProvider();
        int fired = 0;
        var timers = new List<ITimer>();
        for (int i = 1; i <= 1000; i++)
        {
            timers.Add(time.CreateTimer(_ => Interlocked.Increment(ref fired), null, TimeSpan.FromMilliseconds(i), Timeout.InfiniteTimeSpan));
        }

        Parallel.For(0, 100, _ => time.Advance(TimeSpan.FromMilliseconds(10)));

        Assert.Equal(1000, fired);
        Assert.Equal(Start.AddSeconds(1), time.GetUtcNow());
        timers.ForEach(timer => timer.Dispose());
    }
}
