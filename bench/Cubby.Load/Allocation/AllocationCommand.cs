using System.Globalization;
using System.Text;
using Cubby.Client;
using Microsoft.Extensions.DependencyInjection;
using StackExchange.Redis;

namespace Cubby.Load.Allocation;

/// <summary>
/// <c>alloc [--gets N] [--callers 1,64] [--silo PATH]</c>: what one <see cref="ICubbyClient.GetAsync"/> hit of a 1 KiB
/// value allocates on each side, with the silo in its own process so the two are apart. The client's bytes are this
/// process's <see cref="GC.GetTotalAllocatedBytes"/> over the measured Gets, the silo's its <c>INFO memory</c>
/// <c>gc_allocated_bytes_total</c>; each divided by the Gets. Nothing else runs in this process meanwhile.
/// </summary>
internal static class AllocationCommand
{
    private const int Keys = 1_000;
    private const int ValueBytes = 1_024;

    public const string Usage = "alloc [--gets N (200000)] [--callers 1,64] [--silo PATH]";

    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter log)
    {
        var gets = 200_000;
        int[] callerCounts = [1, 64];
        string? siloPath = null;
        var known = await CommandOptions.ReadAsync(args, Usage, new Dictionary<string, Action<string>>
        {
            ["--gets"] = value => gets = int.Parse(value, CultureInfo.InvariantCulture),
            ["--callers"] = value => callerCounts = CommandOptions.Counts(value),
            ["--silo"] = value => siloPath = value,
        }).ConfigureAwait(false);
        if (!known)
        {
            return 2;
        }

        using var silo = await ServerProcess.StartAsync(ServerKind.Cubby, Prerequisites.ForSilo(siloPath)).ConfigureAwait(false);
        using var monitor = await silo.ConnectAsync(TimeSpan.FromSeconds(30)).ConfigureAwait(false);
        await using var services = new ServiceCollection().AddCubbyClient(o => o.Endpoints.Add($"127.0.0.1:{silo.GatewayPort}")).Services.BuildServiceProvider();
        var client = services.GetRequiredService<ICubbyClient>();
        var keys = Enumerable.Range(0, Keys).Select(static key => $"alloc:{key}").ToArray();
        var value = new byte[ValueBytes];
        foreach (var key in keys)
        {
            await client.PutAsync(key, value).ConfigureAwait(false);
        }

        var report = new StringBuilder()
            .AppendLine(CultureInfo.InvariantCulture, $"| Callers | Gets | Client B/Get | Silo B/Get | ops/s |")
            .AppendLine("|---:|---:|---:|---:|---:|");
        foreach (var callers in callerCounts)
        {
            var perCaller = gets / callers;
            await ReadAsync(client, keys, callers, Math.Max(200, 5_000 / callers)).ConfigureAwait(false);
            var siloBefore = await SiloAllocatedAsync(monitor).ConfigureAwait(false);
            var clientBefore = GC.GetTotalAllocatedBytes(precise: true);
            var started = TimeProvider.System.GetTimestamp();
            await ReadAsync(client, keys, callers, perCaller).ConfigureAwait(false);
            var elapsed = TimeProvider.System.GetElapsedTime(started);
            var clientBytes = GC.GetTotalAllocatedBytes(precise: true) - clientBefore;
            var siloBytes = await SiloAllocatedAsync(monitor).ConfigureAwait(false) - siloBefore;
            double measured = perCaller * callers;
            report.AppendLine(CultureInfo.InvariantCulture, $"| {callers} | {measured:N0} | {clientBytes / measured:N0} | {siloBytes / measured:N0} | {measured / elapsed.TotalSeconds:N0} |");
        }

        await log.WriteLineAsync($"Allocation per Get hit of a {ValueBytes}-byte value (its array is {ValueBytes + 24} bytes), silo on port {silo.Port}:\n").ConfigureAwait(false);
        await log.WriteLineAsync(report.ToString()).ConfigureAwait(false);
        return 0;
    }

    private static Task ReadAsync(ICubbyClient client, string[] keys, int callers, int perCaller) =>
        Task.WhenAll(Enumerable.Range(0, callers).Select(caller => Task.Run(async () =>
        {
            for (var i = 0; i < perCaller; i++)
            {
                if (await client.GetAsync(keys[((caller * 7_919) + i) % keys.Length]).ConfigureAwait(false) is not { Length: ValueBytes })
                {
                    throw new HarnessException($"{keys[((caller * 7_919) + i) % keys.Length]} did not read back");
                }
            }
        })));

    /// <summary>The silo's <c>gc_allocated_bytes_total</c>; the INFO call's own reply is a few hundred bytes against the millions measured.</summary>
    private static async Task<long> SiloAllocatedAsync(ConnectionMultiplexer monitor)
    {
        var info = (string?)await monitor.GetDatabase().ExecuteAsync("INFO", "memory").ConfigureAwait(false) ?? string.Empty;
        var line = info.Split('\n').Select(static line => line.Trim()).FirstOrDefault(static line => line.StartsWith("gc_allocated_bytes_total:", StringComparison.Ordinal))
            ?? throw new HarnessException("The silo's INFO memory has no gc_allocated_bytes_total.");
        return long.Parse(line["gc_allocated_bytes_total:".Length..], CultureInfo.InvariantCulture);
    }
}
