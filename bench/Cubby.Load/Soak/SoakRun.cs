using System.Diagnostics;
using System.Globalization;
using Cubby.Load.Measurement;
using Cubby.Load.Workloads;
using StackExchange.Redis;

namespace Cubby.Load.Soak;

/// <summary>
/// Runs the soak: callers that connect, make 500-3000 calls (60 % GET, 25 % SET with a 1-30 s TTL, 10 % SET, 5 % DEL
/// of values from 64 B to 4 KiB over <see cref="SoakOptions.KeySpace"/> keys) and disconnect, over and over, while a
/// sampler reads the silo's RSS every second and its INFO counters every minute.
/// </summary>
internal sealed class SoakRun(SoakOptions options, ServerProcess silo, TextWriter log)
{
    private static readonly TimeSpan Minute = TimeSpan.FromMinutes(1);
    private readonly int _minutes = (int)Math.Ceiling(options.Duration / Minute);
    private readonly Stopwatch _clock = new();

    public async Task<IReadOnlyList<SoakMinute>> RunAsync()
    {
        await using var control = await silo.ConnectAsync(TimeSpan.FromSeconds(10)).ConfigureAwait(false);
        var callers = Enumerable.Range(0, options.Callers).Select(i => new CallerTally(_minutes)).ToArray();
        using var stop = new CancellationTokenSource(options.Duration);
        _clock.Start();
        var load = callers.Select((tally, i) => Task.Run(() => CallAsync(tally, i, stop.Token))).ToArray();
        var samples = await SampleAsync(control.GetDatabase(), stop.Token).ConfigureAwait(false);
        await Task.WhenAll(load).ConfigureAwait(false);

        var minutes = new List<SoakMinute>();
        for (var m = 0; m < samples.Count; m++)
        {
            var latency = new LatencyHistogram();
            foreach (var tally in callers)
            {
                latency.Add(tally.Latency[m]);
            }

            var s = samples[m];
            minutes.Add(new SoakMinute(
                m + 1,
                latency.Count,
                latency.ValueAt(0.50) / 1e6,
                latency.ValueAt(0.99) / 1e6,
                latency.ValueAt(1.0) / 1e6,
                callers.Sum(t => t.Errors[m]),
                callers.Sum(t => t.Connects[m]),
                s.RssBytes / 1048576.0,
                s.UsedMemory / 1048576.0,
                s.GcPauseMs,
                s.Gen2,
                s.Evicted,
                s.Expired));
        }

        return minutes;
    }

    private int MinuteNow() => Math.Min(_minutes - 1, (int)(_clock.Elapsed / Minute));

    private async Task CallAsync(CallerTally tally, int caller, CancellationToken stop)
    {
        var random = new Random(caller);
        var values = Enumerable.Range(0, 32).Select(_ => new byte[random.Next(64, 4097)]).ToArray();
        foreach (var value in values)
        {
            random.NextBytes(value);
        }

        var configuration = new ConfigurationOptions { EndPoints = { { "127.0.0.1", silo.Port } }, AbortOnConnectFail = true, AsyncTimeout = 5000, SyncTimeout = 5000 };
        while (!stop.IsCancellationRequested)
        {
            ConnectionMultiplexer connection;
            try
            {
                connection = await ConnectionMultiplexer.ConnectAsync(configuration).ConfigureAwait(false);
                tally.Connects[MinuteNow()]++;
            }
            catch (RedisConnectionException exception)
            {
                tally.Fail(MinuteNow(), exception, log);
                continue;
            }

            await using (connection.ConfigureAwait(false))
            {
                var database = connection.GetDatabase();
                for (var calls = random.Next(500, 3001); calls > 0 && !stop.IsCancellationRequested; calls--)
                {
                    var key = (RedisKey)string.Create(CultureInfo.InvariantCulture, $"soak:{random.Next(options.KeySpace)}");
                    var roll = random.Next(100);
                    var started = Stopwatch.GetTimestamp();
                    try
                    {
                        if (roll < 60)
                        {
                            await database.StringGetAsync(key).ConfigureAwait(false);
                        }
                        else if (roll < 85)
                        {
                            await database.StringSetAsync(key, values[random.Next(values.Length)], TimeSpan.FromSeconds(random.Next(1, 31))).ConfigureAwait(false);
                        }
                        else if (roll < 95)
                        {
                            await database.StringSetAsync(key, values[random.Next(values.Length)]).ConfigureAwait(false);
                        }
                        else
                        {
                            await database.KeyDeleteAsync(key).ConfigureAwait(false);
                        }

                        tally.Latency[MinuteNow()].Record((long)Stopwatch.GetElapsedTime(started).TotalNanoseconds);
                    }
                    catch (Exception exception) when (exception is RedisException or TimeoutException)
                    {
                        tally.Fail(MinuteNow(), exception, log);
                    }
                }
            }
        }
    }

    private async Task<List<SiloSample>> SampleAsync(IDatabase control, CancellationToken stop)
    {
        var samples = new List<SiloSample>();
        var before = await CountersAsync(control).ConfigureAwait(false);
        long rss = 0;
        using var tick = new PeriodicTimer(TimeSpan.FromSeconds(1));
        var minute = 0;
        while (true)
        {
            var ticked = await NextTickAsync(tick, stop).ConfigureAwait(false);
            rss = Math.Max(rss, silo.ResidentBytes);
            var now = ticked ? (int)(_clock.Elapsed / Minute) : _minutes;
            if (now > minute && minute < _minutes)
            {
                var after = await CountersAsync(control).ConfigureAwait(false);
                var sample = new SiloSample(rss, after.Used, after.PauseMs - before.PauseMs, after.Gen2 - before.Gen2, after.Evicted - before.Evicted, after.Expired - before.Expired);
                samples.Add(sample);
                await log.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"minute {minute + 1}: RSS {rss / 1048576.0:0.0} MiB, used {after.Used / 1048576.0:0.0} MiB, GC pauses {sample.GcPauseMs:0.#} ms, evicted {sample.Evicted}, expired {sample.Expired}")).ConfigureAwait(false);
                before = after;
                rss = 0;
                minute++;
            }

            if (!ticked || silo.HasExited)
            {
                return samples;
            }
        }
    }

    private static async Task<bool> NextTickAsync(PeriodicTimer tick, CancellationToken stop)
    {
        try
        {
            return await tick.WaitForNextTickAsync(stop).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }

    private static async Task<Counters> CountersAsync(IDatabase control)
    {
        var memory = await InfoFields.ReadAsync(control, "memory").ConfigureAwait(false);
        var stats = await InfoFields.ReadAsync(control, "stats").ConfigureAwait(false);
        var gc = await InfoFields.ReadAsync(control, "gc").ConfigureAwait(false);
        return new Counters(
            (long)InfoFields.Number(memory, "used_memory"),
            InfoFields.Number(gc, "gc_total_pause_ms"),
            (long)InfoFields.Number(gc, "gc_gen2_collections"),
            (long)InfoFields.Number(stats, "evicted_keys"),
            (long)InfoFields.Number(stats, "expired_keys"));
    }

    private sealed record Counters(long Used, double PauseMs, long Gen2, long Evicted, long Expired);

    private sealed record SiloSample(long RssBytes, long UsedMemory, double GcPauseMs, long Gen2, long Evicted, long Expired);

    /// <summary>One caller's calls, errors and connections per minute; only its own task writes it.</summary>
    private sealed class CallerTally(int minutes)
    {
        private const int ErrorsLogged = 20;
        private static int s_logged;

        public LatencyHistogram[] Latency { get; } = [.. Enumerable.Range(0, minutes).Select(_ => new LatencyHistogram())];

        public long[] Errors { get; } = new long[minutes];

        public long[] Connects { get; } = new long[minutes];

        public void Fail(int minute, Exception exception, TextWriter log)
        {
            Errors[minute]++;
            if (Interlocked.Increment(ref s_logged) <= ErrorsLogged)
            {
                log.WriteLine($"error in minute {minute + 1}: {exception.GetType().Name}: {exception.Message}");
            }
        }
    }
}
