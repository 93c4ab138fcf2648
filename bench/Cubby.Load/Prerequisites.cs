using System.Text.RegularExpressions;

namespace Cubby.Load;

/// <summary>
/// Finds what a run needs and installs what is missing: redis-server, redis-benchmark and gnuplot from Debian's
/// packages (with apt-get, as root or through passwordless sudo), garnet-server as a .NET tool in .tools/garnet.
/// </summary>
internal static partial class Prerequisites
{
    public const string GarnetVersion = "2.2.8";

    private static readonly TimeSpan InstallTimeout = TimeSpan.FromMinutes(10);

    /// <summary>Only what a soak needs: the silo, and gnuplot for its plot (null when missing).</summary>
    public static ToolSet ForSilo(string? siloPath)
    {
        var silo = siloPath ?? Path.Combine(AppContext.BaseDirectory, "Cubby.Silo.dll");
        if (!File.Exists(silo))
        {
            throw new HarnessException($"The silo is not built at {silo}: build the harness (dotnet build bench/Cubby.Load -c Release), which builds the silo beside it, or pass --silo.");
        }

        return new ToolSet(ExternalProcess.DotnetHost(), silo, string.Empty, string.Empty, string.Empty, ExternalProcess.Which("gnuplot"), string.Empty, string.Empty);
    }

    public static async Task<ToolSet> EnsureAsync(HarnessOptions options, string root, TextWriter log)
    {
        var silo = options.SiloPath ?? Path.Combine(AppContext.BaseDirectory, "Cubby.Silo.dll");
        if (!File.Exists(silo))
        {
            throw new HarnessException($"The silo is not built at {silo}: build the harness (dotnet build bench/Cubby.Load -c Release), which builds the silo beside it, or pass --silo.");
        }

        var packages = new List<string>();
        if (ExternalProcess.Which("redis-server") is null || ExternalProcess.Which("redis-benchmark") is null)
        {
            packages.AddRange(["redis-server", "redis-tools"]);
        }

        if (ExternalProcess.Which("gnuplot") is null)
        {
            packages.Add("gnuplot-nox");
        }

        if (packages.Count > 0)
        {
            await AptInstallAsync(packages, log).ConfigureAwait(false);
        }

        var redisServer = ExternalProcess.Which("redis-server")
            ?? throw new HarnessException("redis-server is not installed and could not be installed: run 'apt-get install redis-server redis-tools' as root.");
        var redisBenchmark = ExternalProcess.Which("redis-benchmark")
            ?? throw new HarnessException("redis-benchmark is not installed and could not be installed: run 'apt-get install redis-tools' as root.");
        var gnuplot = ExternalProcess.Which("gnuplot");
        if (gnuplot is null)
        {
            await log.WriteLineAsync("warning: gnuplot is missing and could not be installed (apt-get install gnuplot-nox); the run writes no plot.").ConfigureAwait(false);
        }

        var dotnet = ExternalProcess.DotnetHost();
        var garnet = options.GarnetPath ?? await EnsureGarnetAsync(dotnet, Path.Combine(root, ".tools", "garnet"), log).ConfigureAwait(false);
        if (!File.Exists(garnet))
        {
            throw new HarnessException($"garnet-server is not at {garnet}.");
        }

        var (_, redisVersionText, _) = await ExternalProcess.RunAsync(redisServer, ["--version"], TimeSpan.FromSeconds(10)).ConfigureAwait(false);
        var redisVersion = RedisVersionPattern().Match(redisVersionText) is { Success: true } match ? match.Groups[1].Value : redisVersionText.Trim();
        return new ToolSet(dotnet, silo, redisServer, redisBenchmark, garnet, gnuplot, redisVersion, GarnetVersionOf(garnet));
    }

    private static async Task<string> EnsureGarnetAsync(string dotnet, string toolPath, TextWriter log)
    {
        var garnet = Path.Combine(toolPath, "garnet-server");
        if (File.Exists(garnet))
        {
            return garnet;
        }

        await log.WriteLineAsync($"Installing garnet-server {GarnetVersion} into {toolPath} ...").ConfigureAwait(false);
        var (exitCode, output, errors) = await ExternalProcess.RunAsync(
            dotnet, ["tool", "install", "--tool-path", toolPath, "garnet-server", "--version", GarnetVersion], InstallTimeout).ConfigureAwait(false);
        if (exitCode != 0 || !File.Exists(garnet))
        {
            throw new HarnessException($"Could not install garnet-server {GarnetVersion} (dotnet tool install --tool-path {toolPath} garnet-server --version {GarnetVersion}), exit code {exitCode}:\n{ExternalProcess.Tail(output + errors)}");
        }

        return garnet;
    }

    private static async Task AptInstallAsync(IReadOnlyList<string> packages, TextWriter log)
    {
        string file;
        List<string> prefix;
        if (LinuxProcess.IsRoot)
        {
            (file, prefix) = ("apt-get", []);
        }
        else if (ExternalProcess.Which("sudo") is { } sudo)
        {
            (file, prefix) = (sudo, ["-n", "apt-get"]);
        }
        else
        {
            await log.WriteLineAsync($"warning: cannot install {string.Join(' ', packages)}: not root and no sudo.").ConfigureAwait(false);
            return;
        }

        var environment = new Dictionary<string, string> { ["DEBIAN_FRONTEND"] = "noninteractive" };
        await log.WriteLineAsync($"Installing {string.Join(' ', packages)} with apt-get ...").ConfigureAwait(false);
        var (updated, updateOutput, updateErrors) = await ExternalProcess.RunAsync(file, [.. prefix, "update", "-qq"], InstallTimeout, environment).ConfigureAwait(false);
        if (updated != 0)
        {
            await log.WriteLineAsync($"warning: apt-get update failed ({updated}):\n{ExternalProcess.Tail(updateOutput + updateErrors)}").ConfigureAwait(false);
        }

        var (installed, output, errors) = await ExternalProcess.RunAsync(
            file, [.. prefix, "install", "-y", "-qq", "--no-install-recommends", .. packages], InstallTimeout, environment).ConfigureAwait(false);
        if (installed != 0)
        {
            await log.WriteLineAsync($"warning: apt-get install {string.Join(' ', packages)} failed ({installed}):\n{ExternalProcess.Tail(output + errors)}").ConfigureAwait(false);
        }
    }

    /// <summary>The installed tool's version, from the folder dotnet tool install keeps it in.</summary>
    private static string GarnetVersionOf(string garnet)
    {
        var store = Path.Combine(Path.GetDirectoryName(garnet)!, ".store", "garnet-server");
        return Directory.Exists(store)
            ? string.Join(", ", Directory.GetDirectories(store).Select(Path.GetFileName).Order(StringComparer.Ordinal))
            : "unknown";
    }

    [GeneratedRegex(@"v=([0-9.]+)")]
    private static partial Regex RedisVersionPattern();
}
