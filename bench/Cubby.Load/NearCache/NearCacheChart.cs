using System.Globalization;
using System.Text;

namespace Cubby.Load.NearCache;

/// <summary>Two panels drawn by gnuplot into an SVG: reads per second of each stack, and its stale reads by age.</summary>
internal static class NearCacheChart
{
    public static async Task WriteAsync(IReadOnlyList<(string Stack, Staleness Staleness)> results, string gnuplot, string svgPath)
    {
        var work = Directory.CreateTempSubdirectory("cubby-near-plot-");
        try
        {
            var data = Path.Combine(work.FullName, "near.tsv");
            var script = Path.Combine(work.FullName, "near.gp");
            var rows = new StringBuilder();
            foreach (var (stack, s) in results)
            {
                // Counts plus one, so a zero shows on the log scale as the floor.
                rows.Append(CultureInfo.InvariantCulture, $"{stack}\t{s.Reads / s.Seconds:0}\t{s.Stale + 1}\t{s.StaleBeyond[1] + 1}\t{s.StaleBeyond[^1] + 1}\n");
            }

            await File.WriteAllTextAsync(data, rows.ToString()).ConfigureAwait(false);
            await File.WriteAllTextAsync(script, $"""
                set terminal svg size 1100,420 dynamic background rgb 'white'
                set output '{svgPath}'
                set multiplot layout 1,2
                set style data histograms
                set style histogram clustered gap 1
                set style fill solid 0.85 border -1
                set grid ytics
                set key top right
                set title 'Reads per second (2 client processes, Zipf, 95 % reads)'
                set yrange [0:*]
                plot '{data}' using 2:xtic(1) title 'reads/s' lc rgb '#2e7d32'
                set title 'Stale reads, plus one (log scale)'
                set logscale y
                set yrange [1:*]
                plot '{data}' using 3:xtic(1) title 'all stale' lc rgb '#c62828', '' using 4 title 'older than 10 ms' lc rgb '#ef6c00', '' using 5 title 'older than the push delay p99' lc rgb '#1565c0'
                unset multiplot
                """).ConfigureAwait(false);
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
}
