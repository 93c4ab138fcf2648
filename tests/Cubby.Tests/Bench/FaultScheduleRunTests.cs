using System.Globalization;
using System.Text.RegularExpressions;
using Cubby.Load.Faults;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Bench;

/// <summary>
/// The fault harness's two-minute schedule on a fixed seed, as <c>bench/Cubby.Load -- faults</c> runs it: three silo
/// processes and PostgreSQL in network namespaces, every kind of fault once (halves, a bridge, a cut, packet loss, a
/// kill, a pause, PostgreSQL cut off), while clients write and read through every silo's RESP door and a gateway client
/// with a strict near cache. The checker then finds no stale read, no lost write, no duplicate increment, no torn or
/// unbalanced transfer and no conflicting watched commit (docs/faults.md).
/// </summary>
[Collection(nameof(FaultNetworkTests))]
public sealed partial class FaultScheduleRunTests
{
    [Fact]
    public async Task Two_minutes_of_every_kind_of_fault_on_three_silos_break_none_of_cubbys_promises()
    {
        using var output = new StringWriter(CultureInfo.InvariantCulture);
        var logs = Directory.CreateTempSubdirectory("cubby-faults-");
        int exit;
        try
        {
            exit = await FaultsCommand.RunAsync(["--seed", "62", "--duration", "120", "--silos", "3", "--silo", SiloProcess.SiloAssemblyPath, "--logs", logs.FullName], output);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            exit = -1;
            output.WriteLine(exception);
        }

        var report = output.ToString();
        if (exit != 0)
        {
            Assert.Fail($"{report}\n{SiloLogTails(logs)}");
        }

        logs.Delete(recursive: true);
        var counts = Counts().Match(report);
        Assert.True(counts.Success, report);
        Assert.True(long.Parse(counts.Groups["reads"].Value, CultureInfo.InvariantCulture) > 100_000, report);
        Assert.True(long.Parse(counts.Groups["writes"].Value, CultureInfo.InvariantCulture) > 10_000, report);
        Assert.Matches(@"[1-9]\d* snapshots of the accounts: 0 torn; total 0", report);
        Assert.Matches(@"[1-9]\d* acknowledged increments: 0 duplicate results", report);
    }

    /// <summary>The end of each silo's log, for a run that failed (the whole logs stay in their folder).</summary>
    private static string SiloLogTails(DirectoryInfo logs) =>
        string.Join('\n', logs.EnumerateFiles("*.log").OrderBy(static file => file.Name, StringComparer.Ordinal).Select(static file => $"{file.FullName}, last lines:\n{string.Join('\n', File.ReadLines(file.FullName).TakeLast(40))}"));

    [GeneratedRegex(@"(?<reads>\d+) reads, (?<writes>\d+) acknowledged writes: 0 stale reads \(oldest 0 ms behind\), 0 lost writes")]
    private static partial Regex Counts();
}
