using System.Diagnostics;
using System.Net.Sockets;
using System.Text;

namespace Cubby.Load.Faults;

/// <summary>
/// A throwaway PostgreSQL server in one node of a <see cref="FaultNetwork"/>, where the silos keep Orleans' membership
/// table and reminders, so faults can cut a silo off from it alone. Started from the machine's binaries
/// (<c>/usr/lib/postgresql/*/bin</c>) as the <c>postgres</c> user, in a folder deleted when disposed; it trusts every
/// connection from the network's addresses, which nothing else can reach.
/// </summary>
internal sealed class NodePostgres : IDisposable
{
    public const int Port = 5432;
    private const string BinariesRoot = "/usr/lib/postgresql";
    private const string ServerUser = "postgres";
    private static readonly TimeSpan CommandTimeout = TimeSpan.FromSeconds(60);

    private readonly Process _process;
    private readonly string _root;
    private readonly StringBuilder _output = new();

    private NodePostgres(FaultNetwork network, int node, Process process, string root)
    {
        (Address, _process, _root) = (network.AddressOf(node), process, root);
        Node = node;
    }

    public int Node { get; }

    public string Address { get; }

    /// <summary>What a silo's <c>Cubby:Clustering:ConnectionString</c> is.</summary>
    public string ConnectionString => $"Host={Address};Port={Port};Username={ServerUser};Database=postgres;Timeout=5;Command Timeout=10";

    /// <summary>Makes a database folder and starts the server in node <paramref name="node"/>; done once it takes connections.</summary>
    /// <exception cref="HarnessException">PostgreSQL's server binaries are not installed, or the server did not start.</exception>
    public static async Task<NodePostgres> StartAsync(FaultNetwork network, int node)
    {
        var binaries = (Directory.Exists(BinariesRoot) ? Directory.GetDirectories(BinariesRoot) : [])
            .Select(static version => Path.Combine(version, "bin"))
            .Where(static bin => File.Exists(Path.Combine(bin, "initdb")))
            .OrderDescending()
            .FirstOrDefault() ?? throw new HarnessException($"PostgreSQL's server binaries are not in {BinariesRoot}/*/bin (apt-get install postgresql).");

        // The server runs as the postgres user, which must reach the folder: not under /root.
        var root = Path.Combine("/tmp", $"cubby-faults-pg-{Guid.NewGuid():N}");
        var data = Path.Combine(root, "data");
        Directory.CreateDirectory(root);
        try
        {
            await RunAsync("chown", ServerUser, root).ConfigureAwait(false);
            await RunAsync("runuser", "-u", ServerUser, "--", Path.Combine(binaries, "initdb"), "-D", data, "-U", ServerUser, "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync")
                .ConfigureAwait(false);
            await File.AppendAllTextAsync(Path.Combine(data, "pg_hba.conf"), "host all all 127.0.0.0/8 trust\n").ConfigureAwait(false);

            var start = network.InNode(node, "runuser",
            [
                "-u", ServerUser, "--", Path.Combine(binaries, "postgres"), "-D", data, "-p", $"{Port}", "-c", $"listen_addresses={network.AddressOf(node)}",
                "-k", root, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=400",
            ]);
            start.RedirectStandardOutput = true;
            start.RedirectStandardError = true;
            start.RedirectStandardInput = true;
            var process = new Process { StartInfo = start };
            var server = new NodePostgres(network, node, process, root);
            process.OutputDataReceived += (_, line) => server.Append(line.Data);
            process.ErrorDataReceived += (_, line) => server.Append(line.Data);
            process.Start();
            process.StandardInput.Close();
            process.BeginOutputReadLine();
            process.BeginErrorReadLine();
            await server.WaitUntilReadyAsync(TimeSpan.FromSeconds(30)).ConfigureAwait(false);
            return server;
        }
        catch
        {
            Directory.Delete(root, recursive: true);
            throw;
        }
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            // runuser forwards the signal to the server; nothing in it is worth a clean stop.
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit(10_000);
        }

        _process.Dispose();
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    private static async Task RunAsync(string file, params string[] arguments)
    {
        var (exitCode, output, errors) = await ExternalProcess.RunAsync(file, arguments, CommandTimeout).ConfigureAwait(false);
        if (exitCode != 0)
        {
            throw new HarnessException($"'{file} {string.Join(' ', arguments)}' failed with exit code {exitCode}: {(errors + output).Trim()}");
        }
    }

    /// <summary>Waits until the server accepts a TCP connection from this process, through the bridge.</summary>
    private async Task WaitUntilReadyAsync(TimeSpan timeout)
    {
        var deadline = Stopwatch.StartNew();
        while (deadline.Elapsed < timeout)
        {
            if (_process.HasExited)
            {
                throw new HarnessException($"PostgreSQL in node {Node} exited with code {_process.ExitCode}:\n{ExternalProcess.Tail(Output)}");
            }

            try
            {
                using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
                using var limit = new CancellationTokenSource(TimeSpan.FromSeconds(1));
                await socket.ConnectAsync(Address, Port, limit.Token).ConfigureAwait(false);
                return;
            }
            catch (Exception exception) when (exception is SocketException or OperationCanceledException)
            {
                await Task.Delay(200).ConfigureAwait(false);
            }
        }

        throw new HarnessException($"PostgreSQL in node {Node} took no connection within {timeout.TotalSeconds:0} s:\n{ExternalProcess.Tail(Output)}");
    }

    private string Output
    {
        get
        {
            lock (_output)
            {
                return _output.ToString();
            }
        }
    }

    private void Append(string? line)
    {
        if (line is not null)
        {
            lock (_output)
            {
                _output.AppendLine(line);
            }
        }
    }
}
