using System.Globalization;
using Cubby.Grains.Hosting;
using Cubby.Resp;
using Cubby.Silo.Hosting;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>
/// A full cache under many concurrent pipelined writers: each write evicts what it needs, none is refused while
/// evictable entries exist, and the budget is never passed.
/// </summary>
public sealed class EvictionUnderLoadTests
{
    private const long Budget = 4L * 1024 * 1024;
    private const int Connections = 32;
    private const int BatchesPerConnection = 24;
    private const int Pipeline = 16;
    private const int ValueBytes = 1024;

    [Theory]
    [InlineData(EntryStoreKind.Native)]
    [InlineData(EntryStoreKind.Managed)]
    public async Task Thirty_two_pipelined_writers_into_a_full_budget_get_no_OOM_and_never_pass_the_budget(EntryStoreKind store)
    {
        await using var silo = await TestSilo.StartAsync(options =>
        {
            options.MaxMemoryBytes = Budget;
            options.Store = store;
        });
        var budget = silo.Runtime.Catalog.Budget;
        var clients = new RespTestClient[Connections];
        for (var c = 0; c < Connections; c++)
        {
            clients[c] = await silo.ConnectAsync();
        }

        long highest = 0;
        using var done = new CancellationTokenSource();
        var watcher = Task.Run(() =>
        {
            while (!done.IsCancellationRequested)
            {
                highest = Math.Max(highest, budget.Used);
                Thread.Yield();
            }
        });
        try
        {
            var errors = await Task.WhenAll(clients.Select((client, c) => Task.Run(() => WriteAsync(client, c)))).WaitAsync(TimeSpan.FromMinutes(3));
            await done.CancelAsync();
            await watcher;

            Assert.Empty(errors.SelectMany(static e => e));
            Assert.InRange(highest, 1, Budget);
            await using var monitor = await silo.ConnectAsync();
            Assert.True(await SiloProbe.InfoAsync(monitor, "stats", "evicted_keys") > 0);
            Assert.InRange(await SiloProbe.InfoAsync(monitor, "memory", "used_memory"), Budget / 2, Budget);
            Assert.Equal(Budget, await SiloProbe.InfoAsync(monitor, "memory", "maxmemory"));

            // OOM stays for what can never fit: one value larger than the whole budget.
            RespAssert.Error("OOM ", await monitor.CallAsync("SET", "too-big", new byte[Budget + 1]));
            RespAssert.Integer(0, await monitor.CallAsync("EXISTS", "too-big"));
        }
        finally
        {
            await done.CancelAsync();
            foreach (var client in clients)
            {
                await client.DisposeAsync();
            }
        }
    }

    /// <summary>Sends batches of pipelined SETs of distinct keys and returns every reply that was not +OK.</summary>
    private static async Task<List<string>> WriteAsync(RespTestClient client, int connection)
    {
        var value = new byte[ValueBytes];
        Random.Shared.NextBytes(value);
        var errors = new List<string>();
        for (var batch = 0; batch < BatchesPerConnection; batch++)
        {
            var frames = new List<byte>();
            for (var i = 0; i < Pipeline; i++)
            {
                frames.AddRange(RespTestClient.Encode("SET", string.Create(CultureInfo.InvariantCulture, $"load:{connection}:{batch}:{i}"), value));
            }

            await client.SendRawAsync([.. frames]);
            for (var i = 0; i < Pipeline; i++)
            {
                var reply = await client.ReadAsync();
                if (reply.Type != RespType.SimpleString)
                {
                    errors.Add(reply.ToString());
                }
            }
        }

        return errors;
    }
}
