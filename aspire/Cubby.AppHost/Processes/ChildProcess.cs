using System.Diagnostics;

namespace Cubby.AppHost.Processes;

/// <summary>
/// A program the AppHost started, in a session of its own (<c>setsid</c>) so a Ctrl+C in the terminal reaches only
/// the AppHost, which then stops its children in order. Every line it writes goes to the console under its
/// resource's prefix.
/// </summary>
internal sealed class ChildProcess : IDisposable
{
    private const string SetSid = "/usr/bin/setsid";
    private readonly Process _process;
    private readonly Task<int> _exited;

    private ChildProcess(Process process)
    {
        _process = process;
        _exited = WaitForExitAsync(process);
    }

    public int Id => _process.Id;

    /// <summary>Completes with the exit code once the process has exited and its output is read.</summary>
    public Task<int> Exited => _exited;

    /// <summary>Starts <paramref name="program"/>; with <paramref name="userName"/> it runs as that user (the AppHost must be root).</summary>
    public static ChildProcess Start(string resource, ConsoleOutput output, string program, IEnumerable<string> arguments,
        IReadOnlyDictionary<string, string> environment, string workingDirectory, string? userName = null)
    {
        var start = new ProcessStartInfo
        {
            FileName = File.Exists(SetSid) ? SetSid : program,
            WorkingDirectory = workingDirectory,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        if (start.FileName == SetSid)
        {
            start.ArgumentList.Add(program);
        }

        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (name, value) in environment)
        {
            start.Environment[name] = value;
        }

        if (userName is not null)
        {
            start.UserName = userName;
        }

        var process = new Process { StartInfo = start };
        process.OutputDataReceived += (_, line) => Forward(output, resource, line.Data);
        process.ErrorDataReceived += (_, line) => Forward(output, resource, line.Data);
        process.Start();
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return new ChildProcess(process);
    }

    /// <summary>
    /// Sends <paramref name="signal"/> and waits for the exit; kills the process when it has not exited within
    /// <paramref name="timeout"/> or when <paramref name="force"/> fires. Returns the exit code, or null when it was killed.
    /// </summary>
    public async Task<int?> StopAsync(int signal, TimeSpan timeout, CancellationToken force)
    {
        if (!_exited.IsCompleted)
        {
            UnixProcess.Signal(_process.Id, signal);
        }

        try
        {
            return await _exited.WaitAsync(timeout, force).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is TimeoutException or OperationCanceledException)
        {
            Kill();
            await _exited.ConfigureAwait(false);
            return null;
        }
    }

    public void Kill()
    {
        if (!_exited.IsCompleted)
        {
            _process.Kill(entireProcessTree: true);
        }
    }

    public void Dispose()
    {
        Kill();
        _process.Dispose();
    }

    private static async Task<int> WaitForExitAsync(Process process)
    {
        await process.WaitForExitAsync().ConfigureAwait(false);
        return process.ExitCode;
    }

    private static void Forward(ConsoleOutput output, string resource, string? line)
    {
        if (line is not null)
        {
            output.Line(resource, line);
        }
    }
}
