using System.Diagnostics;
using System.Net.Sockets;
using System.Text;

namespace Cubby.Load.Faults;

/// <summary>
/// A silo process in one node of a <see cref="FaultNetwork"/>, on that node's address. Every node has a network stack
/// of its own, so every silo uses the same ports. <c>ip netns exec</c> execs the silo in place, so the process's id is
/// the silo's own, and the signals of <see cref="Pause"/>, <see cref="Resume"/> and <see cref="Kill"/> reach it.
/// </summary>
internal sealed class NodeSilo : IDisposable
{
    public const int RespPort = 6379;
    public const int SiloPort = 11111;
    public const int GatewayPort = 30000;
    public const int HttpPort = 8080;

    private readonly Process _process;
    private readonly StringBuilder _output = new();
    private readonly StreamWriter? _log;

    private NodeSilo(FaultNetwork network, int node, Process process, StreamWriter? log)
    {
        (Network, Node, _process, _log) = (network, node, process, log);
    }

    public FaultNetwork Network { get; }

    public int Node { get; }

    /// <summary>The node's address.</summary>
    public string Address => Network.AddressOf(Node);

    public string Gateway => $"{Address}:{GatewayPort}";

    public bool HasExited => _process.HasExited;

    /// <summary>The CPU time the silo used so far, in seconds.</summary>
    public double CpuSeconds => LinuxProcess.CpuSeconds(_process.Id);

    /// <summary>What the silo printed so far.</summary>
    public string Output
    {
        get
        {
            lock (_output)
            {
                return _output.ToString();
            }
        }
    }

    /// <summary>
    /// Starts the silo of <paramref name="silo"/> (its dll) in node <paramref name="node"/> with <paramref name="arguments"/>
    /// added; with <paramref name="logFile"/>, what it prints is added to that file too.
    /// </summary>
    public static NodeSilo Start(FaultNetwork network, int node, string dotnet, string silo, IEnumerable<string> arguments, string? logFile = null)
    {
        var address = network.AddressOf(node);
        var start = network.InNode(node, dotnet,
        [
            silo, "--Cubby:Host", address, "--Cubby:RespPort", $"{RespPort}", "--Cubby:HttpPort", $"{HttpPort}",
            "--Cubby:Clustering:SiloPort", $"{SiloPort}", "--Cubby:Clustering:GatewayPort", $"{GatewayPort}",
            "--Logging:LogLevel:Default", "Warning", .. arguments,
        ]);
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;
        start.RedirectStandardInput = true;
        start.WorkingDirectory = Path.GetDirectoryName(silo)!;
        start.Environment["DOTNET_gcServer"] = "0";
        var process = new Process { StartInfo = start };
        var log = logFile is null ? null : new StreamWriter(logFile, append: true) { AutoFlush = true };
        var started = new NodeSilo(network, node, process, log);
        process.OutputDataReceived += (_, line) => started.Append(line.Data);
        process.ErrorDataReceived += (_, line) => started.Append(line.Data);
        process.Start();
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return started;
    }

    /// <summary>Waits until the silo answers PING on its RESP port, from this process (through the bridge).</summary>
    /// <exception cref="HarnessException">It exited, or did not answer within <paramref name="timeout"/>.</exception>
    public async Task WaitUntilReadyAsync(TimeSpan timeout)
    {
        var deadline = Stopwatch.StartNew();
        while (deadline.Elapsed < timeout)
        {
            if (_process.HasExited)
            {
                throw new HarnessException($"The silo in node {Node} exited with code {_process.ExitCode}:\n{ExternalProcess.Tail(Output)}");
            }

            if (await AnswersAsync(TimeSpan.FromSeconds(1)).ConfigureAwait(false))
            {
                return;
            }

            await Task.Delay(200).ConfigureAwait(false);
        }

        throw new HarnessException($"The silo in node {Node} did not answer PING within {timeout.TotalSeconds:0} s:\n{ExternalProcess.Tail(Output)}");
    }

    /// <summary>Whether the silo answers PING with PONG within <paramref name="timeout"/>.</summary>
    public async Task<bool> AnswersAsync(TimeSpan timeout)
    {
        using var limit = new CancellationTokenSource(timeout);
        try
        {
            using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            await socket.ConnectAsync(Address, RespPort, limit.Token).ConfigureAwait(false);
            await socket.SendAsync("PING\r\n"u8.ToArray(), SocketFlags.None, limit.Token).ConfigureAwait(false);
            var reply = new byte[16];
            var read = await socket.ReceiveAsync(reply, SocketFlags.None, limit.Token).ConfigureAwait(false);
            return Encoding.ASCII.GetString(reply, 0, read).StartsWith("+PONG", StringComparison.Ordinal);
        }
        catch (Exception exception) when (exception is SocketException or OperationCanceledException)
        {
            return false;
        }
    }

    /// <summary>Freezes the silo (SIGSTOP), as a long pause or a stalled machine would.</summary>
    public void Pause() => Signal("STOP");

    /// <summary>Lets a paused silo run again (SIGCONT).</summary>
    public void Resume() => Signal("CONT");

    /// <summary>Kills the silo at once (SIGKILL): no graceful stop.</summary>
    public void Kill()
    {
        if (!_process.HasExited)
        {
            _process.Kill();
            _process.WaitForExit(10_000);
        }
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            Signal("CONT");
            Kill();
        }

        _process.Dispose();
        lock (_output)
        {
            _log?.Dispose();
        }
    }

    private void Signal(string signal)
    {
        if (!_process.HasExited)
        {
            using var kill = Process.Start("kill", ["-" + signal, _process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
            kill.WaitForExit();
        }
    }

    private void Append(string? line)
    {
        if (line is not null)
        {
            lock (_output)
            {
                _output.AppendLine(line);
                _log?.WriteLine(line);
            }
        }
    }
}
