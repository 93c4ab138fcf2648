using Cubby.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Client;

/// <summary>A silo stopped and started again under load: calls fail fast while it is down and succeed once it is back.</summary>
public sealed class ReconnectTests
{
    [Fact]
    public async Task Calls_fail_while_the_silo_is_down_never_hang_and_succeed_again_once_it_restarts()
    {
        var port = FreePorts.Next();
        TestSilo? silo = await TestSilo.StartAsync(o => o.RespPort = port);
        var services = new ServiceCollection();
        services.AddCubbyClient(o =>
        {
            o.Endpoints.Add($"127.0.0.1:{port}");
            o.ConnectTimeout = TimeSpan.FromSeconds(2);
            o.OperationTimeout = TimeSpan.FromSeconds(2);
            o.ReconnectMinDelay = TimeSpan.FromMilliseconds(20);
            o.ReconnectMaxDelay = TimeSpan.FromMilliseconds(200);
        }).AddCubbyDistributedCache();
        await using var provider = services.BuildServiceProvider();
        var client = provider.GetRequiredService<ICubbyClient>();
        var cache = provider.GetRequiredService<IDistributedCache>();
        var load = new ReconnectLoad();
        try
        {
            var workers = Enumerable.Range(0, 6).Select(worker => Task.Run(() => load.RunAsyncWorker(client, worker)))
                .Concat(Enumerable.Range(6, 2).Select(worker => Task.Factory.StartNew(
                    () => load.RunSyncWorker(cache, worker), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)))
                .ToArray();

            await Poll.UntilAsync(() => load.Successes > 300, what: "calls succeeding before the stop");

            var stopping = silo.DisposeAsync().AsTask();
            silo = null;
            await stopping.WaitAsync(TestDeadlines.Phase);
            var failuresAtStop = load.Failures;
            await Poll.UntilAsync(() => load.Failures > failuresAtStop + 4, what: "calls failing while the silo is down");
            var down = await Assert.ThrowsAnyAsync<Exception>(() => client.PutAsync("while-down", new byte[] { 1 }).AsTask().WaitAsync(TestDeadlines.Call));
            Assert.True(down is CubbyConnectionException or TimeoutException, $"unexpected {down}");
            var syncDown = Record.Exception(() => cache.Get("while-down"));
            Assert.True(syncDown is CubbyConnectionException or TimeoutException, $"unexpected {syncDown}");

            silo = await TestSilo.StartAsync(o => o.RespPort = port);
            var successesAtRestart = load.Successes;
            await Poll.UntilAsync(() => load.Successes > successesAtRestart + 300, what: "calls succeeding after the restart");
            Assert.Equal(WriteOutcome.Created, await client.PutAsync("after-restart", "back"u8.ToArray()));
            Assert.Equal("back"u8.ToArray(), await client.GetAsync("after-restart"));
            Assert.Equal("back"u8.ToArray(), cache.Get("after-restart"));

            load.Stop();
            await Task.WhenAll(workers).WaitAsync(TestDeadlines.Phase);
        }
        finally
        {
            load.Stop();
            if (silo is not null)
            {
                await silo.DisposeAsync();
            }
        }

        Assert.Empty(load.Unexpected);
        Assert.Equal(0, load.Hangs);
        Assert.True(load.Failures > 0);
    }
}
