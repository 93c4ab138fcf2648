using System.Diagnostics;

namespace Cubby.Tests.Infrastructure;

/// <summary>How tests start a built .NET program (the silo, the load harness) as a real child process.</summary>
internal static class DotnetProcess
{
    /// <summary>How to run <paramref name="assemblyPath"/>, from <paramref name="workingDirectory"/> (the tests' own directory when null).</summary>
    public static ProcessStartInfo StartInfo(string assemblyPath, IEnumerable<string> arguments, string? workingDirectory = null) =>
        CommandStartInfo("dotnet", [assemblyPath, .. arguments], workingDirectory);

    /// <summary>How to run the program <paramref name="fileName"/> (a path, or a name on PATH), its output and input redirected.</summary>
    public static ProcessStartInfo CommandStartInfo(string fileName, IEnumerable<string> arguments, string? workingDirectory = null)
    {
        var start = new ProcessStartInfo(fileName)
        {
            WorkingDirectory = workingDirectory ?? AppContext.BaseDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return start;
    }

    /// <summary>
    /// Runs <paramref name="start"/> to its end and returns its exit code and everything it wrote (both streams, in
    /// order); fails the test with that output when it runs past <paramref name="limit"/>.
    /// </summary>
    public static async Task<(int ExitCode, string Output)> RunAsync(ProcessStartInfo start, TimeSpan limit)
    {
        var output = new System.Text.StringBuilder();
        using var process = new Process { StartInfo = start };
        process.OutputDataReceived += (_, line) => Append(line.Data);
        process.ErrorDataReceived += (_, line) => Append(line.Data);
        process.Start();
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        using var timeout = new CancellationTokenSource(limit);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            process.WaitForExit(10_000);
            Assert.Fail($"{start.FileName} {string.Join(' ', start.ArgumentList)} did not finish within {limit.TotalSeconds:0} s:\n{Text()}");
        }

        // Bounded: a daemon the command started would hold its output open past its exit.
        process.WaitForExit(10_000);
        return (process.ExitCode, Text());

        void Append(string? line)
        {
            if (line is not null)
            {
                lock (output)
                {
                    output.Append(line).Append('\n');
                }
            }
        }

        string Text()
        {
            lock (output)
            {
                return output.ToString();
            }
        }
    }
}
