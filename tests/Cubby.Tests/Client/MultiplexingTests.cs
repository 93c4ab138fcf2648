using System.Text;
using Cubby.Client;
using Cubby.Resp;

namespace Cubby.Tests.Client;

/// <summary>
/// Many callers share one connection, to the first endpoint (another endpoint that is up is never connected), and
/// every reply reaches the caller that asked for it.
/// </summary>
public sealed class MultiplexingTests
{
    private const int Callers = 1_000;

    [Theory]
    [MemberData(nameof(Protocols.Both), MemberType = typeof(Protocols))]
    public async Task A_thousand_concurrent_callers_each_get_their_own_replies_over_one_connection(RespVersion protocol)
    {
        await using var spare = StandInSilo.Start();
        await using var harness = await ClientHarness.StartAsync(protocol, configure: o => o.Endpoints.Add(spare.Endpoint));
        var client = harness.Client;
        var start = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        // Distinct values of distinct lengths, so a reply handed to the wrong caller cannot look right.
        static byte[] ValueOf(int caller, int round) => Encoding.UTF8.GetBytes($"caller {caller} round {round} " + new string('x', caller % 97));

        var callers = Enumerable.Range(0, Callers).Select(caller => Task.Run(async () =>
        {
            await start.Task;
            var key = $"caller:{caller}";
            for (var round = 0; round < 3; round++)
            {
                var value = ValueOf(caller, round);
                Assert.Equal(round == 0 ? WriteOutcome.Created : WriteOutcome.Updated, await client.PutAsync(key, value));
                Assert.Equal(value, await client.GetAsync(key));
                Assert.Equal(value, (await client.GetEntryAsync(key))!.Value);
                Assert.True(await client.ExistsAsync(key));
            }

            Assert.False(await client.ExistsAsync($"nobody:{caller}"));
            return key;
        })).ToArray();
        start.SetResult();
        await Task.WhenAll(callers).WaitAsync(TestDeadlines.Phase);

        // The silo holds exactly what each caller wrote last.
        for (var caller = 0; caller < Callers; caller += 37)
        {
            Assert.Equal(ValueOf(caller, 2), (await SiloProbe.RawEntryAsync(harness.Monitor, $"caller:{caller}")).Value);
        }

        var connections = await SiloProbe.OtherClientsAsync(harness.Monitor);
        Assert.Single(connections);
        Assert.Equal(2, await SiloProbe.InfoAsync(harness.Monitor, "clients", "connected_clients"));
        Assert.Equal(2, await SiloProbe.InfoAsync(harness.Monitor, "stats", "total_connections_received"));
        Assert.Equal(0, spare.OpenConnections);
        Assert.Empty(spare.Commands);
    }

    [Fact]
    public async Task Sync_and_async_callers_interleaved_on_one_connection_each_get_their_own_replies()
    {
        await using var harness = await ClientHarness.StartAsync();
        var start = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var syncStart = new ManualResetEventSlim();

        var sync = Enumerable.Range(0, 4).Select(worker => Task.Factory.StartNew(() =>
        {
            Assert.True(syncStart.Wait(TestDeadlines.Phase));
            for (var i = 0; i < 300; i++)
            {
                var value = Encoding.UTF8.GetBytes($"sync {worker} {i}");
                harness.Cache.Set($"sync:{worker}", value, new());
                Assert.Equal(value, harness.Cache.Get($"sync:{worker}"));
            }
        }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default));
        var async = Enumerable.Range(0, 100).Select(worker => Task.Run(async () =>
        {
            await start.Task;
            for (var i = 0; i < 12; i++)
            {
                var value = Encoding.UTF8.GetBytes($"async {worker} {i}");
                await harness.Cache.SetAsync($"async:{worker}", value, new());
                Assert.Equal(value, await harness.Cache.GetAsync($"async:{worker}"));
            }
        }));
        start.SetResult();
        syncStart.Set();

        await Task.WhenAll([.. sync, .. async]).WaitAsync(TestDeadlines.Phase);
        Assert.Single(await SiloProbe.OtherClientsAsync(harness.Monitor));
    }
}
