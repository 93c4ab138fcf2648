using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.AppHost;

/// <summary>
/// The built AppHost (<c>dotnet Cubby.AppHost.dll</c>) as a real process, as a developer runs it: its console lines
/// are kept, its resource lines (<c>apphost | name key=value ...</c>) parsed, and it is stopped with real signals.
/// Whatever it started is killed at the end, should a test fail before the AppHost stops it.
/// </summary>
internal sealed partial class AppHostProcess : IDisposable
{
    public const int SigInt = 2;
    public const int SigKill = 9;
    private readonly Process _process;
    private readonly List<string> _lines = [];

    private AppHostProcess(Process process) => _process = process;

    public static string AssemblyPath => Path.Combine(AppContext.BaseDirectory, "Cubby.AppHost.dll");

    public int Id => _process.Id;

    public string Output
    {
        get
        {
            lock (_lines)
            {
                return string.Join('\n', _lines);
            }
        }
    }

    public static AppHostProcess Start(params string[] arguments)
    {
        var start = DotnetProcess.StartInfo(AssemblyPath, arguments);
        start.Environment["NO_COLOR"] = "1";
        var process = new Process { StartInfo = start };
        var host = new AppHostProcess(process);
        process.OutputDataReceived += (_, line) => host.Append(line.Data);
        process.ErrorDataReceived += (_, line) => host.Append(line.Data);
        process.Start();
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return host;
    }

    /// <summary>Waits for a line containing <paramref name="text"/>; fails with the output when the AppHost exits first or time runs out.</summary>
    public async Task WaitForLineAsync(string text, TimeSpan timeout)
    {
        var deadline = Stopwatch.StartNew();
        while (!Output.Contains(text, StringComparison.Ordinal))
        {
            if (_process.HasExited)
            {
                _process.WaitForExit();
                if (Output.Contains(text, StringComparison.Ordinal))
                {
                    return;
                }

                Assert.Fail($"The AppHost exited with code {_process.ExitCode} before printing '{text}'.{Describe()}");
            }

            if (deadline.Elapsed > timeout)
            {
                Assert.Fail($"The AppHost did not print '{text}' within {timeout.TotalSeconds:0} s.{Describe()}");
            }

            await Task.Delay(50);
        }
    }

    /// <summary>The <c>key=value</c> fields of each resource line of the summary, by resource name.</summary>
    public Dictionary<string, Dictionary<string, string>> Resources()
    {
        var resources = new Dictionary<string, Dictionary<string, string>>(StringComparer.Ordinal);
        foreach (Match line in ResourceLine().Matches(Output))
        {
            resources[line.Groups["name"].Value] = line.Groups["fields"].Value
                .Split(' ', StringSplitOptions.RemoveEmptyEntries)
                .Select(field => field.Split('=', 2))
                .ToDictionary(pair => pair[0], pair => pair[1], StringComparer.Ordinal);
        }

        return resources;
    }

    public void Signal(int signal) => Assert.Equal(0, SendSignal(_process.Id, signal));

    public async Task<int> WaitForExitAsync(TimeSpan timeout)
    {
        using var wait = new CancellationTokenSource(timeout);
        try
        {
            await _process.WaitForExitAsync(wait.Token);
        }
        catch (OperationCanceledException)
        {
            Assert.Fail($"The AppHost did not exit within {timeout.TotalSeconds:0} s.{Describe()}");
        }

        _process.WaitForExit();
        return _process.ExitCode;
    }

    public static bool IsRunning(int processId) => Directory.Exists($"/proc/{processId}") && !IsZombie(processId);

    /// <summary>Polls until none of <paramref name="processIds"/> runs.</summary>
    public async Task WaitUntilGoneAsync(IReadOnlyCollection<int> processIds, TimeSpan timeout)
    {
        var deadline = Stopwatch.StartNew();
        while (processIds.Any(IsRunning))
        {
            if (deadline.Elapsed > timeout)
            {
                Assert.Fail($"Processes still running {timeout.TotalSeconds:0} s after the AppHost exited: {string.Join(", ", processIds.Where(IsRunning))}.{Describe()}");
            }

            await Task.Delay(50);
        }
    }

    public string Describe() => $"\n--- AppHost output ---\n{Output}\n--- end of AppHost output ---";

    public void Dispose()
    {
        // The resources live in sessions of their own: a failed test must not leave them running.
        var started = Resources().Values.SelectMany(fields => fields.TryGetValue("pid", out var pid) ? pid.Split(',') : []).Select(int.Parse).ToList();
        if (!_process.HasExited)
        {
            _process.Kill();
            _process.WaitForExit();
        }

        foreach (var processId in started.Where(IsRunning))
        {
            SendSignal(processId, SigKill);
        }

        _process.Dispose();
    }

    private static bool IsZombie(int processId)
    {
        try
        {
            var status = File.ReadAllText($"/proc/{processId}/stat");
            return status[(status.LastIndexOf(')') + 2)..].StartsWith('Z');
        }
        catch (IOException)
        {
            return false;
        }
    }

    private void Append(string? line)
    {
        if (line is not null)
        {
            lock (_lines)
            {
                _lines.Add(line);
            }
        }
    }

    [GeneratedRegex(@"^apphost\s*\|\s+(?<name>[a-z0-9-]+)\s+(?<fields>pid=.*|external=.*)$", RegexOptions.Multiline)]
    private static partial Regex ResourceLine();

    [LibraryImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static partial int SendSignal(int processId, int signal);
}
