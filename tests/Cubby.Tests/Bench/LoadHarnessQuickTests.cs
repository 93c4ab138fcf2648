using Cubby.Tests.Infrastructure;
using System.Diagnostics;
using System.Text;
using System.Text.Json;

namespace Cubby.Tests.Bench;

/// <summary>
/// Runs the load harness (bench/Cubby.Load) in --quick mode as a process, against real redis-server, garnet-server
/// and silo processes, and checks what it writes. It runs alone, so it neither slows nor is slowed by other tests.
/// </summary>
[CollectionDefinition(nameof(LoadHarnessQuickTests), DisableParallelization = true)]
[Collection(nameof(LoadHarnessQuickTests))]
public sealed class LoadHarnessQuickTests
{
    private static readonly string[] Servers = ["cubby", "redis", "garnet"];

    private static readonly string[] Workloads =
    [
        "rb-set-c64-P1", "rb-get-c64-P1", "rb-set-c64-P16", "rb-get-c64-P16", "rb-set-c8-P1", "rb-get-c8-P1",
        "client-set", "client-get", "se-set", "se-get", "distcache-set", "distcache-get", "rediscache-set", "rediscache-get",
    ];

    private static string Harness => Path.Combine(AppContext.BaseDirectory, "Cubby.Load.dll");

    [Fact]
    public async Task Quick_run_writes_json_markdown_and_svg_with_a_measured_row_per_server_and_workload()
    {
        Assert.True(File.Exists(Harness), $"The harness is not built at {Harness}; the test project must reference bench/Cubby.Load.");

        // Installing redis-server, gnuplot and garnet-server on a fresh machine is part of the harness; it is timed apart.
        var install = await RunHarnessAsync(["--install"], TimeSpan.FromMinutes(10));
        Assert.True(install.ExitCode == 0, $"dotnet Cubby.Load.dll --install exited with {install.ExitCode}:\n{install.Output}");

        var output = Directory.CreateTempSubdirectory("cubby-load-test-");
        try
        {
            var run = await RunHarnessAsync(["--quick", "--out", output.FullName], TimeSpan.FromSeconds(90));
            Assert.True(run.ExitCode == 0, $"dotnet Cubby.Load.dll --quick exited with {run.ExitCode}:\n{run.Output}");

            var json = Assert.Single(Directory.GetFiles(output.FullName, "*-quick.json"));
            var stem = json[..^".json".Length];
            using var document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
            var rows = document.RootElement.GetProperty("rows").EnumerateArray().ToArray();
            var expected = 0;
            foreach (var workload in Workloads)
            {
                var cubbyOnly = workload.StartsWith("distcache", StringComparison.Ordinal) || workload.StartsWith("client", StringComparison.Ordinal);
                foreach (var server in Servers.Where(s => !cubbyOnly || s == "cubby"))
                {
                    expected++;
                    var row = Assert.Single(rows, r => r.GetProperty("workload").GetString() == workload && r.GetProperty("server").GetString() == server);
                    Assert.True(row.GetProperty("opsPerSecond").GetProperty("median").GetDouble() > 0, $"{server} {workload} measured no throughput: {row}");
                    Assert.True(row.GetProperty("p99Ms").GetProperty("median").GetDouble() > 0, $"{server} {workload} measured no latency: {row}");
                    Assert.Equal(0, row.GetProperty("errors").GetInt64());
                }
            }

            Assert.Equal(expected, rows.Length);

            var markdown = await File.ReadAllTextAsync(stem + ".md");
            Assert.Contains("| Cubby/Redis | Cubby/Garnet |", markdown, StringComparison.Ordinal);
            Assert.Contains("## IDistributedCache: Cubby's vs AddStackExchangeRedisCache", markdown, StringComparison.Ordinal);
            Assert.Matches(@"\| get \| [0-9.]+[kM]? \| [0-9.]+[kM]? \| [0-9.]+× \|", markdown);
            foreach (var workload in Workloads)
            {
                Assert.Contains($"| {workload} |", markdown, StringComparison.Ordinal);
            }

            var svg = await File.ReadAllTextAsync(stem + ".svg");
            Assert.Contains("<svg", svg, StringComparison.Ordinal);
            Assert.Contains("client-get", svg, StringComparison.Ordinal);
        }
        finally
        {
            output.Delete(recursive: true);
        }
    }

    private static Task<(int ExitCode, string Output)> RunHarnessAsync(string[] arguments, TimeSpan limit) =>
        DotnetProcess.RunAsync(DotnetProcess.StartInfo(Harness, arguments), limit);
}
