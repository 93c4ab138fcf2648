using System.Globalization;
using Cubby.Load.Workloads;

namespace Cubby.Load.Persistence;

/// <summary>
/// What a SET costs one server: <c>redis-benchmark -t set -c 64 -P 16 -d 1024 -r 100000</c> against a server just
/// started, first unmeasured (a short pass to gauge its rate, then a warm-up of a given length, which also writes the
/// keys), then measured for about the given seconds; the server process's CPU time (with the forks it reaped) and the
/// bytes it wrote to storage are read before and after.
/// </summary>
internal static class SetCost
{
    public const int Connections = 64;
    public const int Pipeline = 16;
    public const int ValueBytes = 1_024;
    public const int Keys = 100_000;

    private const int GaugeRequests = 100_000;

    public static async Task<SetRow> MeasureAsync(ServerSetup setup, ToolSet tools, string folder, double warmupSeconds, double seconds, TextWriter log)
    {
        Directory.CreateDirectory(folder);
        using var server = await ServerProcess.StartAsync(setup.Kind, tools, setup.Arguments(folder)).ConfigureAwait(false);
        var gauge = await RunAsync(tools, server, GaugeRequests).ConfigureAwait(false);
        var warm = await RunAsync(tools, server, Requests(gauge.Rps, warmupSeconds)).ConfigureAwait(false);
        var requests = Requests(warm.Rps, seconds);
        var pid = server.ProcessId;
        var (cpu, children, written) = (LinuxProcess.CpuSeconds(pid), LinuxProcess.ChildrenCpuSeconds(pid), LinuxProcess.StorageWrittenBytes(pid));
        var run = await RunAsync(tools, server, requests).ConfigureAwait(false);
        var row = new SetRow(
            setup.Name, run.Rps, run.P50, run.P99, requests,
            LinuxProcess.CpuSeconds(pid) - cpu, LinuxProcess.ChildrenCpuSeconds(pid) - children, LinuxProcess.StorageWrittenBytes(pid) - written);
        if (server.HasExited)
        {
            throw new HarnessException(server.DescribeExit());
        }

        await log.WriteLineAsync(string.Create(CultureInfo.InvariantCulture,
            $"{setup.Name}: {row.Rps:N0} SET/s, p50 {row.P50:F2} ms, p99 {row.P99:F2} ms, {row.CpuMicrosecondsPerOperation:F2} µs CPU/op ({row.ChildCpuMicrosecondsPerOperation:F2} in forks), {row.WrittenBytesPerOperation:N0} B written/op")).ConfigureAwait(false);
        return row;
    }

    private static int Requests(double rate, double seconds) => (int)Math.Clamp(rate * seconds, GaugeRequests, int.MaxValue / 2);

    private static async Task<(double Rps, double P50, double P99)> RunAsync(ToolSet tools, ServerProcess server, int requests)
    {
        string[] arguments =
        [
            "-h", "127.0.0.1", "-p", server.Port.ToString(CultureInfo.InvariantCulture), "-t", "set",
            "-c", Text(Connections), "-P", Text(Pipeline), "-d", Text(ValueBytes), "-r", Text(Keys), "-n", Text(requests), "--csv",
        ];
        var (exitCode, output, errors) = await ExternalProcess.RunAsync(tools.RedisBenchmark, arguments, TimeSpan.FromMinutes(10)).ConfigureAwait(false);
        if (exitCode != 0 || !RedisBenchmarkRunner.TryParse(output, "set", out var result))
        {
            throw new HarnessException($"redis-benchmark {string.Join(' ', arguments)} exited with {exitCode} and no CSV line for SET:\n{ExternalProcess.Tail(output + errors)}{(server.HasExited ? "\n" + server.DescribeExit() : string.Empty)}");
        }

        return (result.Rps, result.P50, result.P99);
    }

    private static string Text(int value) => value.ToString(CultureInfo.InvariantCulture);
}
