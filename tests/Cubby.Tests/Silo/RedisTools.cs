using System.Diagnostics;
using System.Globalization;

namespace Cubby.Tests.Silo;

/// <summary>Runs the Debian redis-tools binaries (redis-cli, redis-benchmark) against a silo.</summary>
internal static class RedisTools
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(120);

    /// <summary>Runs <c>redis-cli -p port args...</c> and returns what it printed.</summary>
    public static Task<(int ExitCode, string Output, string Errors)> CliAsync(int port, params string[] arguments) =>
        RunAsync("redis-cli", ["-p", port.ToString(CultureInfo.InvariantCulture), .. arguments]);

    /// <summary>Runs a redis-cli call that must succeed and returns its standard output.</summary>
    public static async Task<string> CliOutputAsync(int port, params string[] arguments)
    {
        var (exitCode, output, errors) = await CliAsync(port, arguments);
        Assert.True(exitCode == 0, $"redis-cli {string.Join(' ', arguments)} exited with {exitCode}: {output}{errors}");
        return output;
    }

    public static async Task<(int ExitCode, string Output, string Errors)> RunAsync(string tool, IEnumerable<string> arguments)
    {
        var start = new ProcessStartInfo(Require(tool))
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

        using var process = Process.Start(start)!;
        process.StandardInput.Close();
        var output = process.StandardOutput.ReadToEndAsync();
        var errors = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(Timeout);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill();
            Assert.Fail($"{tool} {string.Join(' ', start.ArgumentList)} did not finish within {Timeout.TotalSeconds:0}s.");
        }

        return (process.ExitCode, await output, await errors);
    }

    /// <summary>The tool's full path; fails (never skips) when it is not installed.</summary>
    public static string Require(string tool)
    {
        var path = (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
            .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(directory => Path.Combine(directory, tool))
            .FirstOrDefault(File.Exists);
        Assert.True(path is not null, $"{tool} is not installed. Install the Debian package redis-tools (apt-get install redis-tools), or run tests/run.sh, which installs it.");
        return path;
    }
}
