using System.Globalization;
using Cubby.Cluster;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Cluster;

/// <summary>
/// Silo executables on PostgreSQL membership, each a process of its own on fixed loopback ports, so a silo can be
/// stopped, killed and started again where clients expect it.
/// </summary>
internal sealed class ProcessCluster : IDisposable
{
    public const string Secret = "process-cluster-secret";

    private readonly string[] _arguments;
    private readonly (int Resp, int Http)[] _ports;
    private readonly SiloProcess?[] _silos;

    public ProcessCluster(string connectionString, string clusterId, int silos)
    {
        _arguments =
        [
            "--Cubby:Clustering:Mode", "Postgres",
            "--Cubby:Clustering:ConnectionString", connectionString,
            "--Cubby:Clustering:Secret", Secret,
            "--Cubby:ClusterId", clusterId,
            "--Cubby:MaxMemoryBytes", "536870912",
            "--Logging:LogLevel:Default", "Warning",
            "--Logging:LogLevel:Cubby", "Information",
        ];
        _ports = Enumerable.Range(0, silos).Select(_ => (SiloProcess.FreePort(), SiloProcess.FreePort())).ToArray();
        _silos = new SiloProcess?[silos];
    }

    public int Count => _silos.Length;

    public int RespPort(int index) => _ports[index].Resp;

    public IEnumerable<string> Endpoints => _ports.Select(port => $"127.0.0.1:{port.Resp}");

    public SiloProcess this[int index] => _silos[index] ?? throw new InvalidOperationException($"Silo {index} is not running.");

    public async Task StartAsync(int index)
    {
        var silo = SiloProcess.Start(_ports[index].Resp, _ports[index].Http, _arguments);
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
        var code = await this[index].StopAsync(TimeSpan.FromSeconds(60));
        _silos[index]!.Dispose();
        _silos[index] = null;
        return code;
    }

    public void Kill(int index)
    {
        this[index].Kill();
        _silos[index]!.Dispose();
        _silos[index] = null;
    }

    /// <summary>The view as the silo at <paramref name="index"/> serves it.</summary>
    public async Task<ClusterView> ViewAsync(int index)
    {
        await using var client = await RespTestClient.ConnectAsync(this[index].RespEndPoint);
        var reply = await client.CallAsync("CUBBY.VIEW");
        var silos = reply.Items[2].Items.Select(s => new SiloEndpoint(s.Items[0].AsString()!, s.Items[1].AsString()!, (int)s.Items[2].Integer)).ToArray();
        return new ClusterView(reply.Items[0].Integer, (int)reply.Items[1].Integer, silos);
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

    /// <summary>Waits until every running silo sees <paramref name="silos"/> silos in its view and has no slot moving.</summary>
    public async Task WaitSettledAsync(int silos, TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        var last = string.Empty;
        while (true)
        {
            var settled = true;
            foreach (var index in Running())
            {
                var info = await ClusterInfoAsync(index);
                last = $"silo {index}: {string.Join(',', info.Where(pair => pair.Key.StartsWith("cubby_", StringComparison.Ordinal)).Select(pair => $"{pair.Key}={pair.Value}"))}";
                settled &= info["cubby_view_silos"] == silos.ToString(CultureInfo.InvariantCulture)
                    && info["cubby_slots_awaiting"] == "0" && info["cubby_slots_frozen"] == "0"
                    && (await ViewAsync(index)).Silos.Count == silos;
            }

            if (settled)
            {
                return;
            }

            if (DateTime.UtcNow > deadline)
            {
                Assert.Fail($"The cluster did not settle on {silos} silos within {timeout}; {last}{string.Concat(Running().Select(i => this[i].Describe()))}");
            }

            await Task.Delay(100);
        }
    }

    public IEnumerable<int> Running() => Enumerable.Range(0, Count).Where(i => _silos[i] is not null);

    public string DescribeAll() => string.Concat(Running().Select(i => this[i].Describe()));

    public void Dispose()
    {
        foreach (var silo in _silos)
        {
            silo?.Dispose();
        }
    }
}
