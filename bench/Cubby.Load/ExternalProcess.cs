using System.Diagnostics;
using System.Text;

namespace Cubby.Load;

/// <summary>Runs a command to completion with a time limit, capturing what it prints.</summary>
internal static class ExternalProcess
{
    public static async Task<(int ExitCode, string Output, string Errors)> RunAsync(
        string file, IEnumerable<string> arguments, TimeSpan timeout, IReadOnlyDictionary<string, string>? environment = null)
    {
        var start = new ProcessStartInfo(file)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
        {
            start.Environment[name] = value;
        }

        using var process = Process.Start(start) ?? throw new HarnessException($"Could not start {file}.");
        process.StandardInput.Close();
        var output = process.StandardOutput.ReadToEndAsync();
        var errors = process.StandardError.ReadToEndAsync();
        using var limit = new CancellationTokenSource(timeout);
        try
        {
            await process.WaitForExitAsync(limit.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            process.WaitForExit(10_000);
            throw new HarnessException($"{file} {string.Join(' ', start.ArgumentList)} did not finish within {timeout.TotalSeconds:0} s.");
        }

        // A child that outlives the process (a daemon it started) may hold its output open: wait for it only briefly.
        var drained = TimeSpan.FromSeconds(10);
        return (process.ExitCode, await output.WaitAsync(drained).ConfigureAwait(false), await errors.WaitAsync(drained).ConfigureAwait(false));
    }

    /// <summary>The full path of <paramref name="tool"/> on PATH, or null.</summary>
    public static string? Which(string tool) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "/usr/local/bin:/usr/bin:/bin")
            .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(directory => Path.Combine(directory, tool))
            .FirstOrDefault(File.Exists);

    /// <summary>The dotnet host running this process, so child .NET processes use the same runtime.</summary>
    public static string DotnetHost()
    {
        var self = Environment.ProcessPath;
        return self is not null && Path.GetFileNameWithoutExtension(self) == "dotnet" ? self : Which("dotnet") ?? "dotnet";
    }

    /// <summary>The last lines of a command's output, for error messages.</summary>
    public static string Tail(string text, int lines = 20)
    {
        var all = text.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        var tail = new StringBuilder();
        foreach (var line in all.Skip(Math.Max(0, all.Length - lines)))
        {
            tail.Append("  ").Append(line.TrimEnd()).Append('\n');
        }

        return tail.ToString();
    }
}
