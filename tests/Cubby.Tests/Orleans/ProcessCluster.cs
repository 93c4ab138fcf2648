using System.Globalization;
using Cubby.Tests.Infrastructure;
using Cubby.Grains.Placement;

namespace Cubby.Tests.Orleans;

/// <summary>
/// Silo executables on Orleans' ADO.NET clustering over PostgreSQL, each a process of its own on fixed loopback ports
/// (RESP, HTTP, Orleans silo port), so a silo can be stopped, killed and started again where it was: same endpoint,
/// so the same shards come home to it.
/// </summary>
internal sealed class ProcessCluster : IDisposable
{
    private readonly string[] _arguments;
    private readonly (int Resp, int Http, int Silo)[] _ports;
    private readonly SiloProcess?[] _silos;

    // What stopped and killed silos wrote, so a failure can show how the silo that lost something left.
    private readonly List<string> _retired = [];

    public ProcessCluster(string connectionString, string clusterId, int silos, int slotCount, params string[] arguments)
    {
        SlotCount = slotCount;
        ConnectionString = connectionString;
        ClusterId = clusterId;
        _arguments =
        [
            "--Cubby:Clustering:Mode", "Postgres",
            "--Cubby:Clustering:ConnectionString", connectionString,
            "--Cubby:ClusterId", clusterId,
            "--Cubby:SlotCount", slotCount.ToString(CultureInfo.InvariantCulture),
            "--Cubby:MaxMemoryBytes", "536870912",
            "--Logging:LogLevel:Default", "Warning",
            "--Logging:LogLevel:Cubby", "Information",
            .. arguments,
        ];
        _ports = [.. Enumerable.Range(0, silos).Select(_ => (SiloProcess.FreePort(), SiloProcess.FreePort(), SiloProcess.FreePort()))];
        _silos = new SiloProcess?[silos];
    }

    public int Count => _silos.Length;

    /// <summary>Arguments for one silo only (its own folder), given its index; none by default.</summary>
    public Func<int, string[]>? OwnArguments { get; init; }

    public int SlotCount { get; }

    /// <summary>The membership database's connection string, where Cubby's client finds the gateways.</summary>
    public string ConnectionString { get; }

    public string ClusterId { get; }

    public int RespPort(int index) => _ports[index].Resp;

    public int SiloPort(int index) => _ports[index].Silo;

    /// <summary>The Orleans silo endpoint of the silo at <paramref name="index"/>, as silos rank each other by it.</summary>
    public string SiloEndpoint(int index) => $"127.0.0.1:{_ports[index].Silo}";

    public IEnumerable<string> Endpoints => _ports.Select(port => $"127.0.0.1:{port.Resp}");

    public SiloProcess this[int index] => _silos[index] ?? throw new InvalidOperationException($"Silo {index} is not running.");

    public async Task StartAsync(int index)
    {
        var silo = SiloProcess.Start(_ports[index].Resp, _ports[index].Http, [.. _arguments, .. OwnArguments?.Invoke(index) ?? []], _ports[index].Silo);
        _silos[index] = silo;
        await silo.WaitUntilReadyAsync(TimeSpan.FromSeconds(60));
    }

    public async Task StartAllAsync()
    {
        for (var i = 0; i < Count; i++)
        {
            await StartAsync(i);
        }
    }

    public async Task<int> StopAsync(int index)
    {
        var code = await this[index].StopAsync(TimeSpan.FromSeconds(90));
        Retire(index);
        _silos[index] = null;
        return code;
    }

    public void Kill(int index)
    {
        this[index].Kill();
        Retire(index);
        _silos[index] = null;
    }

    /// <summary>INFO cluster of the silo at <paramref name="index"/>, as field → value.</summary>
    public async Task<Dictionary<string, string>> ClusterInfoAsync(int index)
    {
        await using var client = await RespTestClient.ConnectAsync(this[index].RespEndPoint);
        var text = (await client.CallAsync("INFO", "cluster")).AsString()!;
        return text.Split("\r\n", StringSplitOptions.RemoveEmptyEntries)
            .Where(line => line.Contains(':', StringComparison.Ordinal) && !line.StartsWith('#'))
            .ToDictionary(line => line[..line.IndexOf(':', StringComparison.Ordinal)], line => line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..]);
    }

    /// <summary>
    /// Waits until every running silo sees <paramref name="silos"/> active silos, every shard is active exactly once
    /// (DBSIZE activates them all) and each silo holds some: no shard is in flight and none is left behind.
    /// </summary>
    public async Task WaitSettledAsync(int silos, TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        var last = string.Empty;
        while (true)
        {
            var settled = true;
            var shards = 0;
            foreach (var index in Running())
            {
                await using (var client = await RespTestClient.ConnectAsync(this[index].RespEndPoint))
                {
                    await client.CallAsync("DBSIZE");
                }

                var info = await ClusterInfoAsync(index);
                var here = int.Parse(info["cubby_shards_here"], CultureInfo.InvariantCulture);
                shards += here;
                last = $"silo {index}: active silos {info["cubby_active_silos"]}, shards here {here}";
                settled &= info["cubby_active_silos"] == silos.ToString(CultureInfo.InvariantCulture) && here > 0;
            }

            if (settled && shards == SlotCount)
            {
                return;
            }

            if (DateTime.UtcNow > deadline)
            {
                Assert.Fail($"The cluster did not settle on {silos} silos within {timeout}; {shards} shards active; {last}{DescribeAll()}");
            }

            await Task.Delay(200);
        }
    }

    /// <summary>
    /// Waits until every running silo holds just the copies its rank gives it (<see cref="ShardHomes"/>): the shards it
    /// ranks first for, and a replica of those it ranks next for, up to <paramref name="replicas"/>. Copies left from
    /// moves (an old replica, a shard that just left) are gone by then.
    /// </summary>
    public async Task WaitCopiesAtHomesAsync(int replicas, TimeSpan timeout)
    {
        var running = Running().ToArray();
        var expected = running.ToDictionary(static index => index, static _ => (Shards: 0, Replicas: 0));
        for (var slot = 0; slot < SlotCount; slot++)
        {
            var ranked = running.OrderByDescending(index => ShardHomes.Score(slot, SiloEndpoint(index))).ToArray();
            expected[ranked[0]] = expected[ranked[0]] with { Shards = expected[ranked[0]].Shards + 1 };
            foreach (var index in ranked.Skip(1).Take(replicas))
            {
                expected[index] = expected[index] with { Replicas = expected[index].Replicas + 1 };
            }
        }

        var deadline = DateTime.UtcNow + timeout;
        while (true)
        {
            var placed = true;
            var last = string.Empty;
            foreach (var index in running)
            {
                var info = await ClusterInfoAsync(index);
                var held = (Shards: int.Parse(info["cubby_shards_here"], CultureInfo.InvariantCulture), Replicas: int.Parse(info["cubby_replicas_here"], CultureInfo.InvariantCulture));
                last += $"; silo {index}: {held.Shards} shards and {held.Replicas} replicas here, {expected[index].Shards} and {expected[index].Replicas} by rank";
                placed &= held == expected[index];
            }

            if (placed)
            {
                return;
            }

            if (DateTime.UtcNow > deadline)
            {
                Assert.Fail($"The copies did not settle at the silos their ranks give them within {timeout}{last}{DescribeAll()}");
            }

            await Task.Delay(200);
        }
    }

    public IEnumerable<int> Running() => Enumerable.Range(0, Count).Where(i => _silos[i] is not null);

    public string DescribeAll() => string.Concat(_retired) + string.Concat(Running().Select(i => this[i].Describe()));

    private void Retire(int index)
    {
        _retired.Add(this[index].Describe());
        _silos[index]!.Dispose();
    }

    public void Dispose()
    {
        foreach (var silo in _silos)
        {
            silo?.Dispose();
        }
    }
}
