using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace Cubby.Load.Faults;

/// <summary>
/// A network of its own on this machine, to break on purpose: each node (a silo, PostgreSQL) in a Linux network
/// namespace with one veth link to a bridge in another namespace, and this process joined to the bridge too, as the
/// nodes' clients. Every address is in <c>127.100.S.0/24</c> (S chosen per network), since this machine allows no other
/// range; <c>route_localnet</c> lets such addresses leave a namespace's loopback. Faults are iptables rules in the nodes'
/// namespaces that drop packets silently, as a real partition does (connections time out rather than fail at once).
/// Needs root, <c>ip</c> (iproute2) and <c>iptables</c>.
/// </summary>
internal sealed partial class FaultNetwork : IAsyncDisposable
{
    private const string Prefix = "cubbyf";
    private static readonly TimeSpan CommandTimeout = TimeSpan.FromSeconds(30);

    private readonly int _id;
    private readonly int _subnet;
    private readonly HashSet<(int, int)> _cuts = [];
    private bool _disposed;

    private FaultNetwork(int id, int nodes)
    {
        _id = id;
        _subnet = (id % 250) + 1;
        Nodes = nodes;
    }

    /// <summary>How many nodes the network has, numbered from 0.</summary>
    public int Nodes { get; }

    /// <summary>The address of this process on the network: where the nodes see their clients come from.</summary>
    public string ClientAddress => $"127.100.{_subnet}.254";

    /// <summary>The node number that stands for this process (the clients) in <see cref="CutAsync"/>.</summary>
    public static int Clients => -1;

    /// <summary>The pairs cut now, as given to <see cref="CutAsync"/> (lower number first).</summary>
    public IReadOnlyCollection<(int, int)> Cuts => _cuts;

    private string Bridge => $"{Prefix}{_id}-br";

    /// <summary>Makes a network of <paramref name="nodes"/> nodes, first removing any left by a harness that died.</summary>
    /// <exception cref="HarnessException">Not root, or <c>ip</c>/<c>iptables</c> missing or refused.</exception>
    public static async Task<FaultNetwork> CreateAsync(int nodes)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(nodes, 1);
        if (Environment.UserName != "root")
        {
            throw new HarnessException("The fault network needs root: it makes network namespaces and iptables rules.");
        }

        foreach (var tool in new[] { "ip", "iptables" })
        {
            if (ExternalProcess.Which(tool) is null)
            {
                throw new HarnessException($"'{tool}' is not installed (apt-get install {(tool == "ip" ? "iproute2" : "iptables")}).");
            }
        }

        await RemoveLeftoversAsync().ConfigureAwait(false);
        var network = new FaultNetwork(Environment.ProcessId % 100_000, nodes);
        try
        {
            await network.BuildAsync().ConfigureAwait(false);
            return network;
        }
        catch
        {
            await network.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>The address of node <paramref name="node"/>.</summary>
    public string AddressOf(int node) => node == Clients ? ClientAddress : $"127.100.{_subnet}.{CheckNode(node) + 1}";

    /// <summary>The network namespace node <paramref name="node"/> runs in.</summary>
    public string NamespaceOf(int node) => $"{Prefix}{_id}-n{CheckNode(node)}";

    /// <summary>Runs <paramref name="file"/> in node <paramref name="node"/>'s namespace (through <c>ip netns exec</c>).</summary>
    public ProcessStartInfo InNode(int node, string file, IEnumerable<string> arguments)
    {
        var start = new ProcessStartInfo("ip") { UseShellExecute = false };
        foreach (var argument in (string[])["netns", "exec", NamespaceOf(node), file, .. arguments])
        {
            start.ArgumentList.Add(argument);
        }

        return start;
    }

    /// <summary>
    /// Cuts node <paramref name="node"/> off from each of <paramref name="others"/> (<see cref="Clients"/> for this
    /// process), both ways: their packets are dropped without a word until <see cref="HealAsync"/>.
    /// </summary>
    public async Task CutAsync(int node, params int[] others)
    {
        foreach (var other in others)
        {
            if (other == node || !_cuts.Add(node < other ? (node, other) : (other, node)))
            {
                continue;
            }

            foreach (var (inside, peer) in new[] { (node, other), (other, node) })
            {
                if (inside == Clients)
                {
                    continue;
                }

                await IpTablesAsync(inside, "-A", "INPUT", "-s", AddressOf(peer), "-j", "DROP").ConfigureAwait(false);
                await IpTablesAsync(inside, "-A", "OUTPUT", "-d", AddressOf(peer), "-j", "DROP").ConfigureAwait(false);
            }
        }
    }

    /// <summary>
    /// Drops a share <paramref name="rate"/> (0 to 1) of the packets between node <paramref name="node"/> and each of
    /// <paramref name="others"/>, both ways, at random, until <see cref="HealAsync"/>.
    /// </summary>
    public async Task LoseAsync(int node, double rate, params int[] others)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(rate);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(rate, 1);
        var probability = rate.ToString("0.###", CultureInfo.InvariantCulture);
        foreach (var other in others.Where(other => other != node && other != Clients))
        {
            foreach (var (inside, peer) in new[] { (node, other), (other, node) })
            {
                await IpTablesAsync(inside, "-A", "INPUT", "-s", AddressOf(peer), "-m", "statistic", "--mode", "random", "--probability", probability, "-j", "DROP").ConfigureAwait(false);
            }
        }
    }

    /// <summary>
    /// Sends node <paramref name="node"/>'s new TCP connections to <paramref name="address"/>:<paramref name="port"/> to
    /// <paramref name="toAddress"/>:<paramref name="toPort"/> instead (iptables <c>DNAT</c> in its namespace), until
    /// <see cref="EndRedirectsAsync"/>.
    /// </summary>
    public Task RedirectAsync(int node, string address, int port, string toAddress, int toPort) =>
        IpTablesAsync(node, "-t", "nat", "-A", "OUTPUT", "-p", "tcp", "-d", address, "--dport", port.ToString(CultureInfo.InvariantCulture), "-j", "DNAT", "--to-destination", $"{toAddress}:{toPort}");

    /// <summary>Ends node <paramref name="node"/>'s redirects (connections made through them stay as they are).</summary>
    public Task EndRedirectsAsync(int node) => IpTablesAsync(node, "-t", "nat", "-F", "OUTPUT");

    /// <summary>Ends every cut and loss: each node reaches every other, and the clients, again.</summary>
    public async Task HealAsync()
    {
        for (var node = 0; node < Nodes; node++)
        {
            await IpTablesAsync(node, "-F", "INPUT").ConfigureAwait(false);
            await IpTablesAsync(node, "-F", "OUTPUT").ConfigureAwait(false);
        }

        _cuts.Clear();
    }

    public async ValueTask DisposeAsync()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;

        // Deleting a namespace deletes the veth ends in it, and with them their peers.
        for (var node = 0; node < Nodes; node++)
        {
            await TryIpAsync("netns", "delete", NamespaceOf(node)).ConfigureAwait(false);
        }

        await TryIpAsync("netns", "delete", Bridge).ConfigureAwait(false);
        await TryIpAsync("link", "delete", $"{Prefix}{_id}r").ConfigureAwait(false);
    }

    private static async Task RemoveLeftoversAsync()
    {
        var (_, listing, _) = await ExternalProcess.RunAsync("ip", ["netns", "list"], CommandTimeout).ConfigureAwait(false);
        foreach (Match match in LeftoverPattern().Matches(listing))
        {
            var owner = int.Parse(match.Groups["id"].Value, CultureInfo.InvariantCulture);
            if (!IsRunningHarness(owner))
            {
                await TryIpAsync("netns", "delete", match.Groups["name"].Value).ConfigureAwait(false);
                await TryIpAsync("link", "delete", $"{Prefix}{owner}r").ConfigureAwait(false);
            }
        }
    }

    /// <summary>Whether a process whose id ends in <paramref name="id"/> (ids are kept to five digits) still runs.</summary>
    private static bool IsRunningHarness(int id) =>
        Directory.EnumerateDirectories("/proc").Select(Path.GetFileName).Any(name => int.TryParse(name, out var pid) && pid % 100_000 == id);

    private static async Task TryIpAsync(params string[] arguments) =>
        await ExternalProcess.RunAsync("ip", arguments, CommandTimeout).ConfigureAwait(false);

    private static async Task RunAsync(string file, params string[] arguments)
    {
        var (exitCode, output, errors) = await ExternalProcess.RunAsync(file, arguments, CommandTimeout).ConfigureAwait(false);
        if (exitCode != 0)
        {
            throw new HarnessException($"'{file} {string.Join(' ', arguments)}' failed with exit code {exitCode}: {(errors + output).Trim()}");
        }
    }

    [GeneratedRegex($@"^(?<name>{Prefix}(?<id>\d+)-\S+)", RegexOptions.Multiline)]
    private static partial Regex LeftoverPattern();

    private async Task BuildAsync()
    {
        await RunAsync("ip", "netns", "add", Bridge).ConfigureAwait(false);
        await InAsync(Bridge, "ip", "link", "set", "lo", "up").ConfigureAwait(false);
        await InAsync(Bridge, "ip", "link", "add", "br0", "type", "bridge").ConfigureAwait(false);
        await InAsync(Bridge, "ip", "link", "set", "br0", "up").ConfigureAwait(false);
        for (var node = 0; node < Nodes; node++)
        {
            var space = NamespaceOf(node);
            var (inside, port) = ($"{Prefix}{_id}n{node}", $"{Prefix}{_id}b{node}");
            await RunAsync("ip", "netns", "add", space).ConfigureAwait(false);
            await RunAsync("ip", "link", "add", inside, "type", "veth", "peer", "name", port).ConfigureAwait(false);
            await AttachAsync(port).ConfigureAwait(false);
            await RunAsync("ip", "link", "set", inside, "netns", space).ConfigureAwait(false);
            await InAsync(space, "ip", "link", "set", "lo", "up").ConfigureAwait(false);
            await InAsync(space, "sysctl", "-qw", "net.ipv4.conf.all.route_localnet=1", "net.ipv4.conf.default.route_localnet=1", $"net.ipv4.conf.{inside}.route_localnet=1")
                .ConfigureAwait(false);
            await InAsync(space, "ip", "addr", "add", $"{AddressOf(node)}/24", "dev", inside).ConfigureAwait(false);
            await InAsync(space, "ip", "link", "set", inside, "up").ConfigureAwait(false);
        }

        // This process's own link: only its end's route_localnet, so the rest of this namespace is left as it was.
        var (clients, clientsPort) = ($"{Prefix}{_id}r", $"{Prefix}{_id}c");
        await RunAsync("ip", "link", "add", clients, "type", "veth", "peer", "name", clientsPort).ConfigureAwait(false);
        await AttachAsync(clientsPort).ConfigureAwait(false);
        await RunAsync("sysctl", "-qw", $"net.ipv4.conf.{clients}.route_localnet=1").ConfigureAwait(false);
        await RunAsync("ip", "addr", "add", $"{ClientAddress}/24", "dev", clients).ConfigureAwait(false);
        await RunAsync("ip", "link", "set", clients, "up").ConfigureAwait(false);
    }

    /// <summary>Moves the bridge's end of a veth pair into the bridge's namespace and onto the bridge.</summary>
    private async Task AttachAsync(string port)
    {
        await RunAsync("ip", "link", "set", port, "netns", Bridge).ConfigureAwait(false);
        await InAsync(Bridge, "ip", "link", "set", port, "master", "br0").ConfigureAwait(false);
        await InAsync(Bridge, "ip", "link", "set", port, "up").ConfigureAwait(false);
    }

    private Task IpTablesAsync(int node, params string[] arguments) => InAsync(NamespaceOf(node), "iptables", arguments);

    private static Task InAsync(string space, string file, params string[] arguments) => RunAsync("ip", ["netns", "exec", space, file, .. arguments]);

    private int CheckNode(int node) =>
        node >= 0 && node < Nodes ? node : throw new ArgumentOutOfRangeException(nameof(node), node, $"The network has nodes 0 to {Nodes - 1}.");
}
