using System.Globalization;
using System.Text;

namespace Cubby.Load.Persistence;

/// <summary>
/// Three panels drawn by gnuplot into an SVG: each server's CPU per SET, the time each restart took until every entry
/// was served, and the bytes on disk per entry.
/// </summary>
internal static class PersistenceChart
{
    public static async Task WriteAsync(PersistenceReport report, string gnuplot, string svgPath)
    {
        var work = Directory.CreateTempSubdirectory("cubby-persistence-plot-");
        try
        {
            var sets = Path.Combine(work.FullName, "sets.tsv");
            var loads = Path.Combine(work.FullName, "loads.tsv");
            var disk = Path.Combine(work.FullName, "disk.tsv");
            var scriptPath = Path.Combine(work.FullName, "persistence.gp");
            await File.WriteAllTextAsync(sets, Rows(report.Sets.Select(static row => (row.Server, row.CpuMicrosecondsPerOperation)))).ConfigureAwait(false);
            var restarts = report.Loads.Where(static row => row.Expected > 0).ToList();
            await File.WriteAllTextAsync(loads, Rows(restarts.Select(static row => ($"{row.Server}, after {row.StoppedBy}", row.UntilLoaded.TotalSeconds)))).ConfigureAwait(false);
            await File.WriteAllTextAsync(disk, Rows(report.Disk.Select(static row => ($"{row.Server}, {row.When}", row.BytesPerEntry)))).ConfigureAwait(false);
            var panels = new List<(int Rows, string Plot)>();
            if (report.Sets.Count > 0)
            {
                panels.Add((report.Sets.Count, Panel($"Server CPU per SET, µs (1 KiB values, -c {SetCost.Connections} -P {SetCost.Pipeline})", sets, report.Sets.Count, "%.2f")));
            }

            if (restarts.Count > 0)
            {
                panels.Add((restarts.Count, Panel($"Restart until DBSIZE = {report.Entries:N0}, s", loads, restarts.Count, "%.2f")));
            }

            if (report.Disk.Count > 0)
            {
                panels.Add((report.Disk.Count, Panel($"Bytes on disk per entry ({PersistenceReport.EntryBytes} B of key and value)", disk, report.Disk.Count, "%.0f")));
            }

            // Each panel as tall as its bars need, stacked from the top.
            var height = panels.Sum(static panel => (panel.Rows * 28) + 110);
            var script = new StringBuilder()
                .AppendLine(CultureInfo.InvariantCulture, $"set terminal svg size 1300,{height} dynamic background rgb 'white' font 'Helvetica,12'")
                .AppendLine(CultureInfo.InvariantCulture, $"set output '{svgPath}'")
                .AppendLine("set datafile separator tab")
                .AppendLine("set multiplot")
                .AppendLine("set style fill solid 0.85 border -1")
                .AppendLine("set grid xtics")
                .AppendLine("set ytics noenhanced scale 0")
                .AppendLine("set xrange [0:*]")
                .AppendLine("set offsets 0, graph 0.12, 0, 0")
                .AppendLine("set lmargin at screen 0.42")
                .AppendLine("set rmargin at screen 0.97");
            var top = 1.0;
            foreach (var (rows, plot) in panels)
            {
                var share = ((rows * 28) + 110) / (double)height;
                script.AppendLine(CultureInfo.InvariantCulture, $"set tmargin at screen {top - (45.0 / height):0.0000}")
                    .AppendLine(CultureInfo.InvariantCulture, $"set bmargin at screen {top - share + (35.0 / height):0.0000}")
                    .AppendLine(plot);
                top -= share;
            }

            script.AppendLine("unset multiplot");
            await File.WriteAllTextAsync(scriptPath, script.ToString()).ConfigureAwait(false);
            var (exitCode, output, errors) = await ExternalProcess.RunAsync(gnuplot, [scriptPath], TimeSpan.FromMinutes(1)).ConfigureAwait(false);
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

    /// <summary>
    /// Horizontal bars, one a row of <paramref name="data"/>, labelled with the row's name on the left and its value
    /// (printed with <paramref name="format"/>) at its end; Cubby's bars green, Redis's red.
    /// </summary>
    private static string Panel(string title, string data, int rows, string format) => string.Create(CultureInfo.InvariantCulture, $"""
        set title '{title}'
        set yrange [{rows} - 0.5:-0.5]
        plot '{data}' using ($2/2):0:($2/2):(0.38):($3):yticlabels(1) with boxxyerror lc rgb variable notitle, \
             '' using 2:0:(sprintf('{format}', $2)) with labels left offset 0.5,0 notitle
        """);

    /// <summary>Label, value and colour (Cubby's or Redis's) a line, tab-separated.</summary>
    private static string Rows(IEnumerable<(string Label, double Value)> rows)
    {
        var text = new StringBuilder();
        foreach (var (label, value) in rows)
        {
            var color = label.StartsWith("Cubby", StringComparison.Ordinal) ? 0x2e7d32 : 0xc62828;
            text.Append(label.Replace('\t', ' ')).Append('\t').Append(value.ToString("0.###", CultureInfo.InvariantCulture)).Append('\t').Append(color.ToString(CultureInfo.InvariantCulture)).Append('\n');
        }

        return text.ToString();
    }
}
