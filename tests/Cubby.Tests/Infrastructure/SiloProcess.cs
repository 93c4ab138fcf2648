using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Text;

namespace Cubby.Tests.Infrastructure;

/// <summary>
/// The built silo executable running as a process of its own on loopback, as an operator would run it: for tests
/// that need real processes (redis-cli, signals, several silos). Its output is kept for failure messages.
/// </summary>
public sealed partial class SiloProcess : IDisposable
{
    private const int SigTerm = 15;
    private const int SigStop = 19;
    private const int SigContinue = 18;
    private static readonly TimeSpan DefaultReadyTimeout = TimeSpan.FromSeconds(60);
    private readonly Process _process;
    private readonly StringBuilder _output = new();

    private SiloProcess(Process process, int respPort, int httpPort, int siloPort, int gatewayPort)
    {
        _process = process;
        RespPort = respPort;
        HttpPort = httpPort;
        SiloPort = siloPort;
        GatewayPort = gatewayPort;
    }

    /// <summary>Where the silo was built: the test project references it, so it is copied next to the tests.</summary>
    public static string SiloAssemblyPath => Path.Combine(AppContext.BaseDirectory, "Cubby.Silo.dll");

    public int RespPort { get; }

    public int HttpPort { get; }

    /// <summary>The Orleans silo port, which other silos (and a Development cluster's joiners) reach it on.</summary>
    public int SiloPort { get; }

    /// <summary>The Orleans gateway port, which Cubby's gateway client connects to.</summary>
    public int GatewayPort { get; }

    /// <summary>The gateway as Cubby's client takes it (<c>Cubby:Client:Endpoints</c>).</summary>
    public string Gateway => $"127.0.0.1:{GatewayPort}";

    public IPEndPoint RespEndPoint => new(IPAddress.Loopback, RespPort);

    public int ProcessId => _process.Id;

    public bool HasExited => _process.HasExited;

    /// <summary>Everything the process wrote to stdout and stderr so far.</summary>
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
    /// Starts a silo on free loopback ports and waits until it answers PING. A port taken by someone else between
    /// choosing and binding it is retried on other ports. <paramref name="arguments"/> are added to the command line
    /// (<c>--Cubby:Password pw</c>).
    /// </summary>
    public static async Task<SiloProcess> StartAsync(params string[] arguments)
    {
        const int Attempts = 3;
        for (var attempt = 1; ; attempt++)
        {
            var silo = Start(FreePort(), FreePort(), arguments);
            try
            {
                await silo.WaitUntilReadyAsync(DefaultReadyTimeout);
                return silo;
            }
            catch (InvalidOperationException) when (attempt < Attempts && silo.HasExited && silo.Output.Contains("is in use: another process listens", StringComparison.Ordinal))
            {
                silo.Dispose();
            }
            catch
            {
                silo.Dispose();
                throw;
            }
        }
    }

    /// <summary>
    /// Starts a silo on the given ports without waiting for it; see <see cref="WaitUntilReadyAsync"/>. Its Orleans silo
    /// port is <paramref name="siloPort"/> and its gateway port <paramref name="gatewayPort"/> (free ones when 0); it runs
    /// from <paramref name="workingDirectory"/>, or the tests' own directory. <paramref name="executable"/> names another
    /// silo program to run (an installed <c>cubby-server</c>) instead of the built one.
    /// </summary>
    public static SiloProcess Start(int respPort, int httpPort, IEnumerable<string> arguments, int siloPort = 0, int gatewayPort = 0, string? workingDirectory = null, string? executable = null)
    {
        if (executable is null && !File.Exists(SiloAssemblyPath))
        {
            throw new InvalidOperationException($"The silo is not built at {SiloAssemblyPath}; the test project must reference silo/Cubby.Silo.");
        }

        siloPort = siloPort == 0 ? FreePort() : siloPort;
        gatewayPort = gatewayPort == 0 ? FreePort() : gatewayPort;
        string[] ports = ["--Cubby:RespPort", Text(respPort), "--Cubby:HttpPort", Text(httpPort), "--Cubby:Clustering:SiloPort", Text(siloPort), "--Cubby:Clustering:GatewayPort", Text(gatewayPort)];
        string[] all = ["--Cubby:Host", "127.0.0.1", .. ports, .. arguments];
        var start = executable is null ? DotnetProcess.StartInfo(SiloAssemblyPath, all, workingDirectory) : DotnetProcess.CommandStartInfo(executable, all, workingDirectory);
        return Launch(start, respPort, httpPort, siloPort, gatewayPort);
    }

    /// <summary>
    /// Starts a silo configured by <paramref name="environment"/> alone, as an orchestrator (an Aspire AppHost) starts
    /// one, on free ports: its RESP and HTTP ports as <c>Cubby__RespPort</c>/<c>Cubby__HttpPort</c>, its Orleans ports as
    /// <c>Orleans__Endpoints__SiloPort</c>/<c>GatewayPort</c>. No <c>Cubby__</c>, <c>Orleans__</c> or
    /// <c>ConnectionStrings__</c> variable of the test process reaches it.
    /// </summary>
    public static SiloProcess StartWithEnvironment(IReadOnlyDictionary<string, string> environment)
    {
        var (resp, http, silo, gateway) = (FreePort(), FreePort(), FreePort(), FreePort());
        var start = DotnetProcess.StartInfo(SiloAssemblyPath, []);
        foreach (var inherited in start.Environment.Keys.Where(static name =>
            name.StartsWith("Cubby__", StringComparison.OrdinalIgnoreCase) || name.StartsWith("Orleans__", StringComparison.OrdinalIgnoreCase) || name.StartsWith("ConnectionStrings__", StringComparison.OrdinalIgnoreCase)).ToList())
        {
            start.Environment.Remove(inherited);
        }

        foreach (var (name, value) in environment)
        {
            start.Environment[name] = value;
        }

        start.Environment["Orleans__Endpoints__SiloPort"] = Text(silo);
        start.Environment["Orleans__Endpoints__GatewayPort"] = Text(gateway);
        start.Environment["Cubby__RespPort"] = Text(resp);
        start.Environment["Cubby__HttpPort"] = Text(http);
        return Launch(start, resp, http, silo, gateway);
    }

    private static SiloProcess Launch(ProcessStartInfo start, int respPort, int httpPort, int siloPort, int gatewayPort)
    {
        var process = new Process { StartInfo = start };
        var silo = new SiloProcess(process, respPort, httpPort, siloPort, gatewayPort);
        process.OutputDataReceived += (_, line) => silo.Append(line.Data);
        process.ErrorDataReceived += (_, line) => silo.Append(line.Data);
        process.Start();
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return silo;
    }

    /// <summary>Polls the RESP port until PING answers PONG; fails, with the silo's output, if it exits or the time runs out.</summary>
    public async Task WaitUntilReadyAsync(TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        Exception? last = null;
        while (clock.Elapsed < timeout)
        {
            if (_process.HasExited)
            {
                _process.WaitForExit();
                throw new InvalidOperationException($"The silo exited with code {_process.ExitCode} before it was ready.{Describe()}");
            }

            try
            {
                using var attempt = new CancellationTokenSource(TimeSpan.FromSeconds(5));
                await using var client = await RespTestClient.ConnectAsync(RespEndPoint).WaitAsync(attempt.Token);
                var reply = await client.CallAsync("PING").WaitAsync(attempt.Token);
                if (reply.AsString() == "PONG")
                {
                    return;
                }

                last = new InvalidDataException($"PING answered {reply}");
            }
            catch (Exception exception) when (exception is SocketException or IOException or TimeoutException or OperationCanceledException)
            {
                last = exception;
            }

            await Task.Delay(50);
        }

        throw new InvalidOperationException($"The silo did not answer PING on port {RespPort} within {timeout.TotalSeconds:0}s (last: {last?.Message}).{Describe()}");
    }

    /// <summary>Sends SIGTERM, the signal a service manager stops a process with, and waits for the exit code.</summary>
    public async Task<int> StopAsync(TimeSpan timeout)
    {
        if (!_process.HasExited && SendSignal(_process.Id, SigTerm) != 0 && !_process.HasExited)
        {
            throw new InvalidOperationException($"kill -TERM {_process.Id} failed with errno {Marshal.GetLastPInvokeError()}.");
        }

        using var wait = new CancellationTokenSource(timeout);
        try
        {
            await _process.WaitForExitAsync(wait.Token);
        }
        catch (OperationCanceledException)
        {
            throw new InvalidOperationException($"The silo did not exit within {timeout.TotalSeconds:0}s of SIGTERM.{Describe()}");
        }

        _process.WaitForExit();
        return _process.ExitCode;
    }

    /// <summary>Freezes the process (SIGSTOP), as a stalled machine or a long pause would: it answers nothing until <see cref="Resume"/>.</summary>
    public void Pause() => Signal(SigStop);

    /// <summary>Lets a process frozen by <see cref="Pause"/> run again (SIGCONT).</summary>
    public void Resume() => Signal(SigContinue);

    /// <summary>Kills the process at once (SIGKILL), as a crash would end it.</summary>
    public void Kill()
    {
        if (!_process.HasExited)
        {
            _process.Kill();
            _process.WaitForExit();
        }
    }

    /// <summary>Kills the process if it still runs.</summary>
    public void Dispose()
    {
        try
        {
            Kill();
        }
        catch (InvalidOperationException)
        {
            // It never started or has already been reaped.
        }

        _process.Dispose();
    }

    private void Signal(int signal)
    {
        if (!_process.HasExited && SendSignal(_process.Id, signal) != 0 && !_process.HasExited)
        {
            throw new InvalidOperationException($"kill -{signal} {_process.Id} failed with errno {Marshal.GetLastPInvokeError()}.");
        }
    }

    /// <summary>The silo's output, for assertion messages.</summary>
    public string Describe() => $"\n--- silo output (port {RespPort}) ---\n{Output}--- end of silo output ---";

    /// <summary>A loopback port below the kernel's ephemeral range, free now and never handed out before in this test run.</summary>
    public static int FreePort() => Cubby.Silo.Clustering.FreePort.Pick(IPAddress.Loopback);

    private static string Text(int value) => value.ToString(System.Globalization.CultureInfo.InvariantCulture);

    private void Append(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_output)
        {
            _output.Append(line).Append('\n');
        }
    }

    [LibraryImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static partial int SendSignal(int processId, int signal);
}
