using System.Collections.Concurrent;
using System.Net;
using System.Text;
using Cubby.Client;
using Cubby.Client.Caching;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Options;

namespace Cubby.Tests.Client;

/// <summary>
/// Seed routing with real silos: a dead seed is skipped, and when the silo in use stops, calls in flight and calls to
/// come move to the next seed without failing.
/// </summary>
public sealed class SeedFailoverTests
{
    [Fact]
    public async Task A_dead_first_seed_is_skipped_and_the_live_second_one_takes_the_calls()
    {
        await using var silo = await TestSilo.StartAsync();
        using var client = Create($"127.0.0.1:{FreePorts.Next()}", $"127.0.0.1:{silo.RespEndPoint.Port}");

        Assert.Equal(WriteOutcome.Created, await client.PutAsync("k", "v"u8.ToArray()));
        Assert.Equal("v"u8.ToArray(), await client.GetAsync("k"));
        Assert.Equal("v"u8.ToArray(), new CubbyDistributedCache(client).Get("k"));

        await using var monitor = await silo.ConnectAsync();
        Assert.Single(await SiloProbe.OtherClientsAsync(monitor));
        Assert.Equal("v"u8.ToArray(), (await SiloProbe.RawEntryAsync(monitor, "k")).Value);
    }

    [Fact]
    public async Task When_the_silo_in_use_stops_calls_resume_on_another_seed_started_later()
    {
        var first = await TestSilo.StartAsync();
        var secondPort = FreePorts.Next();
        using var client = Create($"127.0.0.1:{first.RespEndPoint.Port}", $"127.0.0.1:{secondPort}");
        var cache = new CubbyDistributedCache(client);
        Assert.Equal(WriteOutcome.Created, await client.PutAsync("k", "first"u8.ToArray()));

        await first.DisposeAsync();
        await using var second = await TestSilo.StartAsync(o => o.RespPort = secondPort);

        await Poll.UntilAsync(
            async () =>
            {
                try
                {
                    return await client.PutAsync("k", "second"u8.ToArray()) == WriteOutcome.Created;
                }
                catch (CubbyConnectionException)
                {
                    return false;
                }
            },
            what: "a write reaching the second silo");
        Assert.Equal("second"u8.ToArray(), cache.Get("k"));
        await using var monitor = await second.ConnectAsync();
        Assert.Equal("second"u8.ToArray(), (await SiloProbe.RawEntryAsync(monitor, "k")).Value);
    }

    [Fact]
    public async Task A_read_in_flight_when_its_silo_goes_away_is_answered_by_the_next_seed()
    {
        // Two silos that share nothing: which one answered shows in the value. The first is reached through a proxy
        // that holds its replies back.
        var first = await TestSilo.StartAsync();
        var proxyOpen = true;
        var proxy = PausableProxy.Start(new IPEndPoint(IPAddress.Loopback, 0), first.RespEndPoint);
        await using var second = await TestSilo.StartAsync();
        await using var secondMonitor = await second.ConnectAsync();
        await secondMonitor.CallAsync("SET", "k", "second");
        using var client = Create($"127.0.0.1:{proxy.EndPoint.Port}", $"127.0.0.1:{second.RespEndPoint.Port}");
        try
        {
            Assert.Equal(WriteOutcome.Created, await client.PutAsync("k", "first"u8.ToArray()));
            await using (var firstMonitor = await first.ConnectAsync())
            {
                proxy.PauseReplies();
                var before = await SiloProbe.CommandsProcessedAsync(firstMonitor);
                var pending = client.GetAsync("k").AsTask();
                var probes = 0;

                // Each probe adds one INFO to the count; anything beyond is the read.
                await Poll.UntilAsync(async () => await SiloProbe.CommandsProcessedAsync(firstMonitor) > before + ++probes, what: "the read reaching the first silo");
                Assert.False(pending.IsCompleted);

                // The silo goes away with the read's reply still on its way: the connection drops.
                proxyOpen = false;
                await proxy.DisposeAsync();
                Assert.Equal("second"u8.ToArray(), await pending.WaitAsync(TestDeadlines.Call));
            }

            Assert.Equal(2, client.Router.OpenConnections);
        }
        finally
        {
            if (proxyOpen)
            {
                await proxy.DisposeAsync();
            }

            await first.DisposeAsync();
        }
    }

    [Fact]
    public async Task Stopping_the_silo_in_use_under_load_fails_no_call()
    {
        // The test stops the first silo itself; the cluster's disposal stops what is left.
        await using var cluster = await TestCluster.StartAsync(2);
        var (first, second) = (cluster.Silos[0], cluster.Silos[1]);
        using var client = Create($"127.0.0.1:{first.RespEndPoint.Port}", $"127.0.0.1:{second.RespEndPoint.Port}");
        var cache = new CubbyDistributedCache(client);
        Assert.False(await client.ExistsAsync("warm-up"));
        Assert.Equal(1, client.Router.OpenConnections);

        using var stop = new CancellationTokenSource();
        var successes = 0;
        var failures = new ConcurrentQueue<Exception>();

        // Each worker writes then reads its own key; the read may miss when the first silo took the entry with it.
        void Record(byte[] written, byte[]? read)
        {
            if (read is not null && !read.AsSpan().SequenceEqual(written))
            {
                failures.Enqueue(new InvalidDataException("read another worker's value"));
            }

            Interlocked.Increment(ref successes);
        }

        var asyncWorkers = Enumerable.Range(0, 8).Select(worker => Task.Run(async () =>
        {
            for (var round = 0; !stop.IsCancellationRequested; round++)
            {
                var value = Encoding.UTF8.GetBytes($"async {worker} {round}");
                try
                {
                    await client.PutAsync($"async:{worker}", value);
                    Record(value, await client.GetAsync($"async:{worker}"));
                }
                catch (Exception exception)
                {
                    failures.Enqueue(exception);
                }
            }
        }));
        var syncWorkers = Enumerable.Range(0, 2).Select(worker => Task.Factory.StartNew(
            () =>
            {
                for (var round = 0; !stop.IsCancellationRequested; round++)
                {
                    var value = Encoding.UTF8.GetBytes($"sync {worker} {round}");
                    try
                    {
                        cache.Set($"sync:{worker}", value, new());
                        Record(value, cache.Get($"sync:{worker}"));
                    }
                    catch (Exception exception)
                    {
                        failures.Enqueue(exception);
                    }
                }
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default));
        Task[] workers = [.. asyncWorkers, .. syncWorkers];
        try
        {
            await Poll.UntilAsync(() => Volatile.Read(ref successes) > 500, what: "calls succeeding before the stop");
            await first.DisposeAsync().AsTask().WaitAsync(TestDeadlines.Phase);
            var atStop = Volatile.Read(ref successes);
            await Poll.UntilAsync(() => Volatile.Read(ref successes) > atStop + 500, what: "calls succeeding after the stop");
        }
        finally
        {
            await stop.CancelAsync();
            await Task.WhenAll(workers).WaitAsync(TestDeadlines.Phase);
        }

        Assert.Empty(failures);
        Assert.Equal(2, client.Router.OpenConnections);
        await using var monitor = await second.ConnectAsync();
        Assert.NotEmpty(await SiloProbe.OtherClientsAsync(monitor));
    }

    private static CubbyClient Create(params string[] seeds)
    {
        var options = new CubbyClientOptions
        {
            ConnectTimeout = TimeSpan.FromSeconds(2),
            ReconnectMinDelay = TimeSpan.FromMilliseconds(20),
            ReconnectMaxDelay = TimeSpan.FromMilliseconds(200),
        };
        foreach (var seed in seeds)
        {
            options.Endpoints.Add(seed);
        }

        return new CubbyClient(Options.Create(options));
    }
}
