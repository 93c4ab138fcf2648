using System.Globalization;
using System.Text;
using Cubby.Load.Measurement;

namespace Cubby.Load.Reports;

/// <summary>Grouped bars of ops/s and p99 per workload and server, drawn by gnuplot into an SVG.</summary>
internal static class GnuplotChart
{
    private static readonly Dictionary<ServerKind, string> Colors = new()
    {
        [ServerKind.Cubby] = "#2e7d32",
        [ServerKind.Redis] = "#c62828",
        [ServerKind.Garnet] = "#1565c0",
    };

    public static async Task WriteAsync(RunReport report, IReadOnlyList<ServerKind> servers, string gnuplot, string svgPath)
    {
        var work = Directory.CreateTempSubdirectory("cubby-plot-");
        try
        {
            var data = Path.Combine(work.FullName, "results.tsv");
            var script = Path.Combine(work.FullName, "results.gp");
            await File.WriteAllTextAsync(data, Data(report, servers)).ConfigureAwait(false);
            await File.WriteAllTextAsync(script, Script(report, servers, data, svgPath)).ConfigureAwait(false);
            var (exitCode, output, errors) = await ExternalProcess.RunAsync(gnuplot, [script], TimeSpan.FromMinutes(1)).ConfigureAwait(false);
            if (exitCode != 0 || !File.Exists(svgPath))
            {
                throw new HarnessException($"gnuplot failed with exit code {exitCode}:\n{ExternalProcess.Tail(output + errors)}");
            }
        }
        finally
        {
            work.Delete(recursive: true);
        }
    }

    private static string Data(RunReport report, IReadOnlyList<ServerKind> servers)
    {
        var text = new StringBuilder();
        foreach (var workload in report.Info.Workloads.Keys)
        {
            text.Append(workload);
            foreach (var server in servers)
            {
                text.Append('\t').Append(Cell(report.Find(workload, server)?.OpsPerSecond));
            }

            foreach (var server in servers)
            {
                text.Append('\t').Append(Cell(report.Find(workload, server)?.P99Ms));
            }

            text.Append('\n');
        }

        return text.ToString();

        static string Cell(Stat? stat) => stat is { Median: > 0 } ? stat.Median.ToString("0.######", CultureInfo.InvariantCulture) : "?";
    }

    private static string Script(RunReport report, IReadOnlyList<ServerKind> servers, string data, string svgPath)
    {
        var info = report.Info;
        string Plot(int firstColumn) => string.Join(", ", servers.Select((server, i) =>
            $"'{data}' using {firstColumn + i}{(i == 0 ? ":xtic(1)" : string.Empty)} title '{server}' lc rgb '{Colors[server]}'"));

        var text = new StringBuilder();
        void Line(FormattableString line) => text.Append(line.ToString(CultureInfo.InvariantCulture)).Append('\n');
        Line($"set terminal svg size 1400,1000 dynamic font 'Helvetica,12' background rgb 'white'");
        Line($"set output '{svgPath}'");
        Line($"set datafile separator '\\t'");
        Line($"set datafile missing '?'");
        Line($"set style data histograms");
        Line($"set style histogram clustered gap 1");
        Line($"set style fill solid 0.85 border -1");
        Line($"set boxwidth 0.9");
        Line($"set xtics noenhanced rotate by 30 right scale 0 font ',10'");
        Line($"set grid ytics");
        Line($"set logscale y");
        Line($"set key top right");
        Line($"set multiplot layout 2,1 title 'Cubby vs Redis vs Garnet, {info.Date}, {info.Machine}: median of {info.Rounds} round(s), {info.Cores} cores' noenhanced");
        Line($"set format y '%.0s%c'");
        Line($"set ylabel 'ops/s (log)'");
        Line($"plot {Plot(2)}");
        Line($"set format y '%g'");
        Line($"set ylabel 'p99 latency, ms (log)'");
        Line($"plot {Plot(2 + servers.Count)}");
        Line($"unset multiplot");
        return text.ToString();
    }
}
