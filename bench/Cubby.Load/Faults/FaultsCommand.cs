using System.Buffers.Text;
using System.Diagnostics;
using System.Globalization;
using Cubby.Client;
using Microsoft.Extensions.DependencyInjection;
using StackExchange.Redis;

namespace Cubby.Load.Faults;

/// <summary>
/// <c>faults</c>: silos in a <see cref="FaultNetwork"/>, registers written through the RESP door of one silo and read
/// through every silo's, while one silo is cut off from its peers (not from its clients) or paused, and healed; then the
/// <see cref="RegisterChecker"/> says which reads were stale and which acknowledged writes were lost. The first scenario
/// of the fault harness: random schedules of every fault kind come next (docs/faults.md).
/// </summary>
internal static class FaultsCommand
{
    public const string Usage = "faults [--fault cut|pause|kill (cut)] [--silos N (3)] [--registers R (16)] [--cut SECONDS (20)] [--settle SECONDS (20)] [--silo PATH]";

    private const string NearCacheReader = "the gateway client's near cache";
    private const string CounterKey = "counter";

    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(2);

    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter log)
    {
        int silos = 3, registers = 16;
        double cutSeconds = 20, settleSeconds = 20;
        string? siloPath = null;
        var fault = "cut";
        var known = await CommandOptions.ReadAsync(args, Usage, new Dictionary<string, Action<string>>
        {
            ["--fault"] = value => fault = value is "cut" or "pause" or "kill" ? value : throw new HarnessException($"--fault is cut, pause or kill, not '{value}'."),
            ["--silos"] = value => silos = int.Parse(value, CultureInfo.InvariantCulture),
            ["--registers"] = value => registers = int.Parse(value, CultureInfo.InvariantCulture),
            ["--cut"] = value => cutSeconds = double.Parse(value, CultureInfo.InvariantCulture),
            ["--settle"] = value => settleSeconds = double.Parse(value, CultureInfo.InvariantCulture),
            ["--silo"] = value => siloPath = value,
        }).ConfigureAwait(false);
        if (!known)
        {
            return 2;
        }

        var tools = Prerequisites.ForSilo(siloPath);
        await using var network = await FaultNetwork.CreateAsync(silos).ConfigureAwait(false);
        var nodes = new List<NodeSilo>();
        NodeSilo Start(int node) => NodeSilo.Start(
            network,
            node,
            tools.Dotnet,
            tools.Silo,
            node == 0 ? ["--Cubby:Clustering:Mode", "Development"] : ["--Cubby:Clustering:Mode", "Development", "--Cubby:Clustering:PrimaryEndpoint", $"{network.AddressOf(0)}:{NodeSilo.SiloPort}"]);
        try
        {
            nodes.Add(Start(0));
            await nodes[0].WaitUntilReadyAsync(TimeSpan.FromSeconds(60)).ConfigureAwait(false);
            for (var node = 1; node < silos; node++)
            {
                nodes.Add(Start(node));
            }

            foreach (var node in nodes)
            {
                await node.WaitUntilReadyAsync(TimeSpan.FromSeconds(60)).ConfigureAwait(false);
            }

            await log.WriteLineAsync($"{silos} silos up in namespaces on 127.100.x; clients at {network.ClientAddress}").ConfigureAwait(false);
            var report = await RunScenarioAsync(network, nodes, Start, fault, registers, TimeSpan.FromSeconds(cutSeconds), TimeSpan.FromSeconds(settleSeconds), log).ConfigureAwait(false);
            await log.WriteLineAsync(Describe(report)).ConfigureAwait(false);
            return report.Passed ? 0 : 3;
        }
        finally
        {
            nodes.ForEach(static node => node.Dispose());
        }
    }

    private static async Task<RegisterReport> RunScenarioAsync(
        FaultNetwork network, List<NodeSilo> nodes, Func<int, NodeSilo> start, string fault, int registers, TimeSpan cut, TimeSpan settle, TextWriter log)
    {
        var connections = await Task.WhenAll(nodes.Select(static node => ConnectAsync(node))).ConfigureAwait(false);

        // A gateway client with a strict near cache, given every silo's gateway: its reads are checked like the door's.
        var services = new ServiceCollection();
        services.AddCubbyClient(options =>
        {
            nodes.ForEach(node => options.Endpoints.Add(node.Gateway));
            options.NearCache.Enabled = true;
        });
        await using var app = services.BuildServiceProvider();
        var nearClient = app.GetRequiredService<ICubbyClient>();
        try
        {
            var history = new RegisterHistory();
            using var stop = new CancellationTokenSource();
            var writer = connections[0];
            var workers = Enumerable.Range(0, registers).Select(register => WriteAsync(writer, nodes[0], register, history, stop.Token))
                .Concat(connections.SelectMany((connection, index) => Enumerable.Range(0, 2).Select(reader => ReadAsync(connection, nodes[index], registers, history, reader, stop.Token))))
                .Concat(Enumerable.Range(0, 2).Select(reader => ReadNearAsync(nearClient, registers, history, reader, stop.Token)))
                .Concat(Enumerable.Range(0, 4).Select(incrementer => IncrementAsync(connections[incrementer % (nodes.Count - 1)], history, stop.Token)))
                .ToArray();

            // The last silo is cut from its peers, not from its clients (reads through it go on), paused (they wait, and
            // run when it wakes), or killed (they fail) and started again.
            var victim = nodes.Count - 1;
            await Task.Delay(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
            await log.WriteLineAsync($"{fault} node {victim} for {cut.TotalSeconds:0} s").ConfigureAwait(false);
            switch (fault)
            {
                case "cut":
                    await network.CutAsync(victim, [.. Enumerable.Range(0, nodes.Count - 1)]).ConfigureAwait(false);
                    break;
                case "pause":
                    nodes[victim].Pause();
                    break;
                default:
                    nodes[victim].Kill();
                    break;
            }

            await Task.Delay(cut).ConfigureAwait(false);
            switch (fault)
            {
                case "cut":
                    await network.HealAsync().ConfigureAwait(false);
                    break;
                case "pause":
                    nodes[victim].Resume();
                    break;
                default:
                    nodes[victim].Dispose();
                    nodes[victim] = start(victim);
                    break;
            }

            await log.WriteLineAsync($"ended; settling for {settle.TotalSeconds:0} s").ConfigureAwait(false);
            await Task.Delay(settle).ConfigureAwait(false);
            await stop.CancelAsync().ConfigureAwait(false);
            await Task.WhenAll(workers).ConfigureAwait(false);

            var final = new Dictionary<int, long>();
            for (var register = 0; register < registers; register++)
            {
                final[register] = await ReadBackAsync(writer, Key(register)).ConfigureAwait(false);
            }

            return RegisterChecker.Check(history, final, await ReadBackAsync(writer, CounterKey).ConfigureAwait(false));
        }
        finally
        {
            foreach (var connection in connections)
            {
                await connection.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    private static Task<ConnectionMultiplexer> ConnectAsync(NodeSilo node) =>
        ConnectionMultiplexer.ConnectAsync(new ConfigurationOptions
        {
            EndPoints = { { node.Address, NodeSilo.RespPort } },
            AbortOnConnectFail = false,
            ConnectTimeout = (int)Timeout.TotalMilliseconds,
            SyncTimeout = (int)Timeout.TotalMilliseconds,
            AsyncTimeout = (int)Timeout.TotalMilliseconds,
        });

    private static async Task WriteAsync(ConnectionMultiplexer connection, NodeSilo node, int register, RegisterHistory history, CancellationToken stop)
    {
        var database = connection.GetDatabase();
        for (long value = 1; !stop.IsCancellationRequested; value++)
        {
            var sent = Stopwatch.GetTimestamp();
            long? acknowledged = null;
            try
            {
                await database.StringSetAsync(Key(register), value).ConfigureAwait(false);
                acknowledged = Stopwatch.GetTimestamp();
            }
            catch (Exception exception) when (exception is RedisException or TimeoutException)
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }

            history.Wrote(register, value, sent, acknowledged, $"node {node.Node}");
        }
    }

    private static async Task ReadAsync(ConnectionMultiplexer connection, NodeSilo node, int registers, RegisterHistory history, int reader, CancellationToken stop)
    {
        var database = connection.GetDatabase();
        var random = new Random((node.Node * 100) + reader);
        while (!stop.IsCancellationRequested)
        {
            var register = random.Next(registers);
            var began = Stopwatch.GetTimestamp();
            try
            {
                var value = await database.StringGetAsync(Key(register)).ConfigureAwait(false);
                history.Read(register, value.IsNull ? 0 : (long)value, began, Stopwatch.GetTimestamp(), $"node {node.Node}");
            }
            catch (Exception exception) when (exception is RedisException or TimeoutException)
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }
        }
    }

    private static async Task ReadNearAsync(ICubbyClient client, int registers, RegisterHistory history, int reader, CancellationToken stop)
    {
        var random = new Random(1000 + reader);
        for (var read = 1; !stop.IsCancellationRequested; read++)
        {
            var register = random.Next(registers);
            var began = Stopwatch.GetTimestamp();
            try
            {
                var value = await client.GetAsync(Key(register), CancellationToken.None).ConfigureAwait(false);
                history.Read(register, value is not null && Utf8Parser.TryParse(value, out long number, out _) ? number : 0, began, Stopwatch.GetTimestamp(), NearCacheReader);
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }

            // Near-cache hits complete at once: a pause now and then leaves the writers the cores.
            if (read % 256 == 0)
            {
                await Task.Delay(1, CancellationToken.None).ConfigureAwait(false);
            }
        }
    }

    private static async Task IncrementAsync(ConnectionMultiplexer connection, RegisterHistory history, CancellationToken stop)
    {
        var database = connection.GetDatabase();
        while (!stop.IsCancellationRequested)
        {
            try
            {
                history.Incremented(await database.StringIncrementAsync(CounterKey).ConfigureAwait(false));
            }
            catch (Exception exception) when (exception is RedisException or TimeoutException)
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }
        }
    }

    /// <summary>The key's number once the cluster answers again (tried for up to a minute).</summary>
    private static async Task<long> ReadBackAsync(ConnectionMultiplexer connection, string key)
    {
        var deadline = Stopwatch.StartNew();
        while (true)
        {
            try
            {
                var value = await connection.GetDatabase().StringGetAsync(key).ConfigureAwait(false);
                return value.IsNull ? 0 : (long)value;
            }
            catch (Exception exception) when ((exception is RedisException or TimeoutException) && deadline.Elapsed < TimeSpan.FromMinutes(1))
            {
                await Task.Delay(200).ConfigureAwait(false);
            }
        }
    }

    private static string Describe(RegisterReport report)
    {
        var text = string.Create(
            CultureInfo.InvariantCulture,
            $"{report.Reads} reads, {report.AcknowledgedWrites} acknowledged writes: {report.Stale.Count} stale reads (oldest {report.OldestStale.TotalMilliseconds:0} ms behind), {report.Lost.Count} lost writes; {report.Increments} acknowledged increments: {report.DuplicateIncrements.Count} duplicate results, counter {report.CounterBehind} behind");
        foreach (var group in report.Stale.GroupBy(static read => read.Read.Via))
        {
            text += $"\n  stale through {group.Key}: {group.Count()}";
        }

        foreach (var lost in report.Lost.Take(10))
        {
            text += $"\n  lost: register {lost.Write.Register} acknowledged {lost.Write.Value}, read back {lost.ReadBack}";
        }

        return text;
    }

    private static string Key(int register) => $"register:{register}";
}
