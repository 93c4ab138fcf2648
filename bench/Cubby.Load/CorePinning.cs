using System.Diagnostics;
using System.Globalization;

namespace Cubby.Load;

/// <summary>
/// With <c>--pin</c>: each server on core 0 and everything that makes load (the harness's own clients and the
/// redis-benchmark it starts) on the other cores, so that a server's tail is its own and not the scheduler's choice
/// between it and the load generator on a machine with few cores. Uses <c>taskset</c> (util-linux).
/// </summary>
internal static class CorePinning
{
    public const string ServerCores = "0";

    public static string LoadCores => Environment.ProcessorCount == 2 ? "1" : $"1-{Environment.ProcessorCount - 1}";

    /// <summary>Moves every thread of this process (and so every thread and child it starts later) to <see cref="LoadCores"/>.</summary>
    public static void PinThisProcess()
    {
        using var taskset = Process.Start("taskset", ["-a", "-p", "-c", LoadCores, Environment.ProcessId.ToString(CultureInfo.InvariantCulture)]);
        taskset.WaitForExit();
        if (taskset.ExitCode != 0)
        {
            throw new HarnessException($"taskset could not pin the harness to cores {LoadCores} (exit {taskset.ExitCode}).");
        }
    }

    /// <summary>The command line that runs <paramref name="file"/> on <see cref="ServerCores"/>.</summary>
    public static (string File, IEnumerable<string> Arguments) OnServerCores(string file, IEnumerable<string> arguments) =>
        ("taskset", ["-c", ServerCores, file, .. arguments]);
}
