using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using StackExchange.Redis;

namespace Cubby.Load;

/// <summary>One server under test, started on a free loopback port; killed (with anything it started) on dispose.</summary>
internal sealed class ServerProcess : IDisposable
{
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);
    private static readonly ConcurrentDictionary<ServerProcess, bool> Running = new();
    private readonly Process _process;
    private readonly StringBuilder _output = new();

    private ServerProcess(ServerKind kind, Process process, int port, int gatewayPort)
    {
        Kind = kind;
        _process = process;
        Port = port;
        GatewayPort = gatewayPort;
    }

    public ServerKind Kind { get; }

    /// <summary>The RESP port.</summary>
    public int Port { get; }

    /// <summary>A Cubby silo's Orleans gateway port, which Cubby's client connects to; 0 for the other servers.</summary>
    public int GatewayPort { get; }

    public int ProcessId => _process.Id;

    public bool HasExited => _process.HasExited;

    /// <summary>Whether the process ends within <paramref name="timeout"/> (a stopping silo takes a second or two).</summary>
    public bool ExitsWithin(TimeSpan timeout) => _process.WaitForExit(timeout);

    public long ResidentBytes => LinuxProcess.ResidentBytes(_process.Id);

    public double CpuSeconds => LinuxProcess.CpuSeconds(_process.Id);

    /// <summary>Starts the server and waits until it answers PING; a port taken in between is retried on another.</summary>
    /// <param name="kind">Which server.</param>
    /// <param name="tools">Where its executable is.</param>
    /// <param name="extraArguments">Added to its command line.</param>
    /// <param name="pinned">Runs it on <see cref="CorePinning.ServerCores"/>.</param>
    /// <param name="port">The RESP port, for a caller that watches it from the start; a free one when null.</param>
    public static async Task<ServerProcess> StartAsync(ServerKind kind, ToolSet tools, IReadOnlyList<string>? extraArguments = null, bool pinned = false, int? port = null)
    {
        for (var attempt = 1; ; attempt++)
        {
            var server = Start(kind, tools, port ?? FreePort(), extraArguments ?? [], pinned);
            try
            {
                await server.WaitUntilReadyAsync().ConfigureAwait(false);
                return server;
            }
            catch (HarnessException) when (attempt < 3 && server._process.HasExited)
            {
                server.Dispose();
            }
            catch
            {
                server.Dispose();
                throw;
            }
        }
    }

    /// <summary>A StackExchange.Redis connection to the RESP port, for the harness's own calls (readiness, INFO, filling keys).</summary>
    public async Task<ConnectionMultiplexer> ConnectAsync(TimeSpan timeout)
    {
        var options = new ConfigurationOptions
        {
            EndPoints = { { "127.0.0.1", Port } },
            AbortOnConnectFail = true,

            // INFO, which the probe reads, is an admin command to StackExchange.Redis.
            AllowAdmin = true,
            ConnectTimeout = (int)timeout.TotalMilliseconds,
            SyncTimeout = (int)timeout.TotalMilliseconds,
            AsyncTimeout = (int)timeout.TotalMilliseconds,
        };
        return await ConnectionMultiplexer.ConnectAsync(options).ConfigureAwait(false);
    }

    /// <summary>Kills every server still running: the harness is being stopped (Ctrl+C, SIGTERM).</summary>
    public static void KillAll()
    {
        foreach (var server in Running.Keys)
        {
            server.Dispose();
        }
    }

    public void Dispose()
    {
        Running.TryRemove(this, out _);
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill(entireProcessTree: true);
                _process.WaitForExit(10_000);
            }
        }
        catch (InvalidOperationException)
        {
            // Never started, or already reaped.
        }

        _process.Dispose();
    }

    private static ServerProcess Start(ServerKind kind, ToolSet tools, int port, IReadOnlyList<string> extraArguments, bool pinned)
    {
        var text = port.ToString(System.Globalization.CultureInfo.InvariantCulture);
        var gatewayPort = kind == ServerKind.Cubby ? FreePort() : 0;
        var (file, arguments) = kind switch
        {
            ServerKind.Cubby => (tools.Dotnet, new[]
            {
                tools.Silo, "--Cubby:Host", "127.0.0.1", "--Cubby:RespPort", text,
                "--Cubby:HttpPort", Text(FreePort()),
                "--Cubby:Clustering:SiloPort", Text(FreePort()), "--Cubby:Clustering:GatewayPort", Text(gatewayPort),
                "--Logging:LogLevel:Default", "Warning",
            }),
            ServerKind.Redis => (tools.RedisServer, new[] { "--port", text, "--bind", "127.0.0.1", "--save", string.Empty, "--appendonly", "no" }),
            _ => (tools.Garnet, new[] { "--port", text, "--bind", "127.0.0.1", "--memory", "2g", "--index", "64m", "--logger-level", "Warning" }),
        };
        var workingDirectory = Path.GetDirectoryName(kind == ServerKind.Cubby ? tools.Silo : file)!;
        var (command, commandArguments) = pinned ? CorePinning.OnServerCores(file, arguments.Concat(extraArguments)) : (file, arguments.Concat(extraArguments));
        var start = new ProcessStartInfo(command)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory,
        };
        foreach (var argument in commandArguments)
        {
            start.ArgumentList.Add(argument);
        }

        if (kind == ServerKind.Cubby)
        {
            // Workstation GC, as the silo ships, whatever the environment says; Garnet keeps its own settings.
            start.Environment["DOTNET_gcServer"] = "0";
        }

        var process = new Process { StartInfo = start };
        var server = new ServerProcess(kind, process, port, gatewayPort);
        process.OutputDataReceived += (_, line) => server.Append(line.Data);
        process.ErrorDataReceived += (_, line) => server.Append(line.Data);
        process.Start();
        Running[server] = true;
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return server;
    }

    private static string Text(int value) => value.ToString(System.Globalization.CultureInfo.InvariantCulture);

    internal static int FreePort()
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)listener.LocalEndPoint!).Port;
    }

    private async Task WaitUntilReadyAsync()
    {
        var clock = Stopwatch.StartNew();
        Exception? last = null;
        while (clock.Elapsed < ReadyTimeout)
        {
            if (_process.HasExited)
            {
                throw new HarnessException($"{Kind} exited with code {_process.ExitCode} before answering PING.{Describe()}");
            }

            // A port not listening yet is found at once here; StackExchange.Redis may instead wait out its connect timeout.
            if (!await AcceptsConnectionsAsync().ConfigureAwait(false))
            {
                await Task.Delay(50).ConfigureAwait(false);
                continue;
            }

            try
            {
                await using var connection = await ConnectAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
                await connection.GetDatabase().PingAsync().ConfigureAwait(false);
                return;
            }
            catch (Exception exception) when (exception is RedisException or TimeoutException)
            {
                last = exception;
            }

            await Task.Delay(100).ConfigureAwait(false);
        }

        throw new HarnessException($"{Kind} did not answer PING on port {Port} within {ReadyTimeout.TotalSeconds:0} s (last: {last?.Message ?? "the port did not accept a connection"}).{Describe()}");
    }

    /// <summary>Whether the RESP port accepts a TCP connection.</summary>
    private async Task<bool> AcceptsConnectionsAsync()
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        using var limit = new CancellationTokenSource(TimeSpan.FromSeconds(1));
        try
        {
            await socket.ConnectAsync(new IPEndPoint(IPAddress.Loopback, Port), limit.Token).ConfigureAwait(false);
            return true;
        }
        catch (Exception exception) when (exception is SocketException or OperationCanceledException)
        {
            return false;
        }
    }

    /// <summary>How the process ended and the last of its output, once it has exited.</summary>
    public string DescribeExit()
    {
        _process.WaitForExit(10_000);
        return $"{Kind} (pid {_process.Id}) exited with code {_process.ExitCode}.{Describe()}";
    }

    private string Describe()
    {
        lock (_output)
        {
            return $"\n--- {Kind} output ---\n{ExternalProcess.Tail(_output.ToString(), 40)}--- end ---";
        }
    }

    private void Append(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_output)
        {
            // Only the tail matters for error messages; a chatty server must not grow this without bound.
            if (_output.Length > 64 * 1024)
            {
                _output.Remove(0, 32 * 1024);
            }

            _output.Append(line).Append('\n');
        }
    }
}
