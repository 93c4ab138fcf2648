using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Cubby.AppHost.Tests;

/// <summary>
/// The AppHost run as a developer runs it (its built program, with the <c>http</c> launch profile's settings, on free
/// ports), for what only a process shows: signals. Its environment carries a mark that every process it starts inherits,
/// so the test finds them all (DCP runs detached, outside the AppHost's process tree).
/// </summary>
internal sealed class AppHostProcess : IDisposable
{
    private readonly Process _process;
    private readonly StringBuilder _output = new();

    private AppHostProcess()
    {
        Mark = $"cubby-apphost-test-{Guid.NewGuid():N}";
        var program = Path.Combine(AppContext.BaseDirectory, "Cubby.AppHost.dll");
        var start = new ProcessStartInfo("dotnet", [program])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            WorkingDirectory = AppContext.BaseDirectory,
            Environment =
            {
                ["CUBBY_APPHOST_TEST_MARK"] = Mark,
                ["ASPNETCORE_ENVIRONMENT"] = "Development",
                ["DOTNET_ENVIRONMENT"] = "Development",
                ["ASPNETCORE_URLS"] = $"http://localhost:{FreePort()}",
                ["ASPIRE_DASHBOARD_OTLP_ENDPOINT_URL"] = $"http://localhost:{FreePort()}",
                ["ASPIRE_RESOURCE_SERVICE_ENDPOINT_URL"] = $"http://localhost:{FreePort()}",
                ["ASPIRE_ALLOW_UNSECURED_TRANSPORT"] = "true",
                ["ASPIRE_DASHBOARD_UNSECURED_ALLOW_ANONYMOUS"] = "true",
                ["ASPIRE_VERSION_CHECK_DISABLED"] = "true",
            },
        };
        _process = Process.Start(start)!;
        _process.OutputDataReceived += (_, line) => Append(line.Data);
        _process.ErrorDataReceived += (_, line) => Append(line.Data);
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
    }

    /// <summary>The value of the environment variable every process of this run carries.</summary>
    public string Mark { get; }

    public int Id => _process.Id;

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

    public static AppHostProcess Start() => new();

    /// <summary>A loopback port nobody listens on now.</summary>
    public static int FreePort()
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)socket.LocalEndPoint!).Port;
    }

    /// <summary>Every live process carrying this run's mark, but the AppHost itself.</summary>
    public IReadOnlyList<int> Started() => ProcessTree.WithEnvironment("CUBBY_APPHOST_TEST_MARK", Mark).Where(pid => pid != Id).ToArray();

    /// <summary>SIGTERM, as a service manager or <c>kill</c> stops it.</summary>
    public void Terminate()
    {
        using var kill = Process.Start("kill", ["-TERM", Id.ToString(System.Globalization.CultureInfo.InvariantCulture)])!;
        kill.WaitForExit();
    }

    public async Task<int> WaitForExitAsync(TimeSpan timeout)
    {
        using var deadline = new CancellationTokenSource(timeout);
        try
        {
            await _process.WaitForExitAsync(deadline.Token);
        }
        catch (OperationCanceledException)
        {
            Assert.Fail($"The AppHost did not exit within {timeout.TotalSeconds:0} s.\n{Output}");
        }

        return _process.ExitCode;
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
        }

        foreach (var pid in Started())
        {
            try
            {
                Process.GetProcessById(pid).Kill();
            }
            catch (ArgumentException)
            {
                // Gone already.
            }
        }

        _process.Dispose();
    }

    private void Append(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_output)
        {
            _output.AppendLine(line);
        }
    }
}
