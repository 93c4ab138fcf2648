using System.Diagnostics;
using System.Globalization;
using System.Text;
using Cubby.Grains.Hosting;
using Cubby.Resp;
using Cubby.Silo.Hosting;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using Xunit.Abstractions;

namespace Cubby.Tests.Silo;

/// <summary>
/// A silo process written ten times its memory budget keeps its resident memory near the budget: the data charged to
/// the budget is what it holds, and what eviction frees is reused rather than left in the allocator. The bound here is
/// generous (twice the budget plus 48 MiB over the RSS before the load); the measured figures are in the output and
/// bench/rss-bound.sh measures them at any budget.
/// </summary>
[Collection(FullLoadCollection.Name)]
public sealed class MemoryBoundTests(ITestOutputHelper output)
{
    private const long Budget = 32L * 1024 * 1024;
    private const long Allowance = (2 * Budget) + (48L * 1024 * 1024);
    private const int Connections = 32;
    private const int Pipeline = 16;
    private const int ValueBytes = 1024;

    [Theory]
    [InlineData(EntryStoreKind.Native)]
    [InlineData(EntryStoreKind.Managed)]
    public async Task Writing_ten_budgets_of_values_keeps_RSS_within_a_bound_of_the_budget(EntryStoreKind store)
    {
        using var silo = await SiloProcess.StartAsync("--Cubby:MaxMemoryBytes", Budget.ToString(CultureInfo.InvariantCulture), "--Cubby:Store", store.ToString());
        using var process = Process.GetProcessById(silo.ProcessId);
        var clients = new RespTestClient[Connections];
        for (var c = 0; c < Connections; c++)
        {
            clients[c] = await RespTestClient.ConnectAsync(silo.RespEndPoint);
        }

        try
        {
            // The same connections and command mix once, small, then emptied: what RSS holds after that is the silo's own.
            await WriteAsync(clients, batchesPerConnection: 4, "warm");
            RespAssert.Ok(await clients[0].CallAsync("FLUSHALL"));
            var baseRss = Rss(process);

            var peakRss = baseRss;
            using var done = new CancellationTokenSource();
            var sampler = Task.Run(async () =>
            {
                using var tick = new PeriodicTimer(TimeSpan.FromMilliseconds(50));
                while (await tick.WaitForNextTickAsync(CancellationToken.None) && !done.IsCancellationRequested)
                {
                    peakRss = Math.Max(peakRss, Rss(process));
                }
            });
            var batches = (int)(10 * Budget / ValueBytes / Pipeline / Connections);
            var errors = await WriteAsync(clients, batches, "load").WaitAsync(TimeSpan.FromMinutes(5));
            peakRss = Math.Max(peakRss, Rss(process));
            await done.CancelAsync();
            await sampler;

            var used = await SiloProbe.InfoAsync(clients[0], "memory", "used_memory");
            var evicted = await SiloProbe.InfoAsync(clients[0], "stats", "evicted_keys");
            output.WriteLine($"{store}: budget {Budget >> 20} MiB, base RSS {baseRss >> 20} MiB, peak {peakRss >> 20} MiB (+{(peakRss - baseRss) >> 20} MiB), used_memory {used}, evicted {evicted}");

            Assert.Empty(errors);
            Assert.InRange(used, Budget / 2, Budget);
            Assert.True(evicted > Connections * batches * Pipeline / 2, $"only {evicted} evictions");
            Assert.True(peakRss - baseRss <= Allowance, $"RSS grew {(peakRss - baseRss) >> 20} MiB for a {Budget >> 20} MiB budget (allowed {Allowance >> 20} MiB)");
            Assert.False(silo.HasExited);
        }
        finally
        {
            foreach (var client in clients)
            {
                await client.DisposeAsync();
            }
        }
    }

    private static long Rss(Process process)
    {
        process.Refresh();
        return process.WorkingSet64;
    }

    /// <summary>Pipelined SETs of fresh keys from every connection at once; returns every reply that was not +OK.</summary>
    private static async Task<string[]> WriteAsync(RespTestClient[] clients, int batchesPerConnection, string prefix)
    {
        var value = new string('v', ValueBytes);
        var errors = await Task.WhenAll(clients.Select((client, c) => Task.Run(async () =>
        {
            var failed = new List<string>();
            var frames = new StringBuilder();
            for (var batch = 0; batch < batchesPerConnection; batch++)
            {
                frames.Clear();
                for (var i = 0; i < Pipeline; i++)
                {
                    var key = string.Create(CultureInfo.InvariantCulture, $"{prefix}:{c}:{batch}:{i}");
                    frames.Append(CultureInfo.InvariantCulture, $"*3\r\n$3\r\nSET\r\n${key.Length}\r\n{key}\r\n${ValueBytes}\r\n{value}\r\n");
                }

                await client.SendRawAsync(Encoding.ASCII.GetBytes(frames.ToString()));
                for (var i = 0; i < Pipeline; i++)
                {
                    var reply = await client.ReadAsync();
                    if (reply.Type != RespType.SimpleString)
                    {
                        failed.Add(reply.ToString());
                    }
                }
            }

            return failed;
        })));
        return [.. errors.SelectMany(static e => e)];
    }
}
