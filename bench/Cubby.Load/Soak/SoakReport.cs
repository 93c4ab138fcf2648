using System.Globalization;
using System.Text;

namespace Cubby.Load.Soak;

/// <summary>A soak's minutes as a table (.tsv), a summary (.md) and RSS and p99 against time (.svg, by gnuplot).</summary>
internal static class SoakReport
{
    /// <summary>Minutes before RSS is expected to level: the budget fills and the JIT settles.</summary>
    private const int WarmupMinutes = 3;

    public static string Table(IReadOnlyList<SoakMinute> minutes)
    {
        var text = new StringBuilder("minute\tcalls\tp50_ms\tp99_ms\tmax_ms\terrors\tconnects\trss_mib\tused_mib\tgc_pause_ms\tgen2\tevicted\texpired\n");
        foreach (var m in minutes)
        {
            text.Append(CultureInfo.InvariantCulture, $"{m.Minute}\t{m.Calls}\t{m.P50Ms:0.###}\t{m.P99Ms:0.###}\t{m.MaxMs:0.###}\t{m.Errors}\t{m.Connects}\t{m.RssMiB:0.#}\t{m.UsedMemoryMiB:0.#}\t{m.GcPauseMs:0.#}\t{m.Gen2Collections}\t{m.Evicted}\t{m.Expired}\n");
        }

        return text.ToString();
    }

    public static string Summary(IReadOnlyList<SoakMinute> minutes, SoakOptions options, string table)
    {
        var settled = minutes.Skip(Math.Min(WarmupMinutes, minutes.Count - 1)).ToList();
        var first = settled[0];
        var last = settled[^1];
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"# Soak: {minutes.Count} min, {options.Store} store, budget {options.Budget / 1048576.0:0} MiB, {options.Callers} callers\n\n");
        text.Append(CultureInfo.InvariantCulture, $"- Calls: {minutes.Sum(m => m.Calls)}; errors: {minutes.Sum(m => m.Errors)}; connections: {minutes.Sum(m => m.Connects)}; evicted: {minutes.Sum(m => m.Evicted)}; expired: {minutes.Sum(m => m.Expired)}.\n");
        text.Append(CultureInfo.InvariantCulture, $"- RSS after warm-up (minute {first.Minute} on): {first.RssMiB:0.#} MiB in minute {first.Minute}, {last.RssMiB:0.#} MiB in minute {last.Minute}, highest {settled.Max(m => m.RssMiB):0.#} MiB; slope {Slope(settled):0.00} MiB/min.\n");
        text.Append(CultureInfo.InvariantCulture, $"- p99 per minute: {minutes.Min(m => m.P99Ms):0.###}–{minutes.Max(m => m.P99Ms):0.###} ms; GC pauses per minute: up to {minutes.Max(m => m.GcPauseMs):0.#} ms.\n\n");
        text.Append("| ").AppendJoin(" | ", table.Split('\n')[0].Split('\t')).Append(" |\n|");
        text.Append(string.Concat(Enumerable.Repeat("---:|", table.Split('\n')[0].Split('\t').Length))).Append('\n');
        foreach (var line in table.Split('\n').Skip(1).Where(static l => l.Length > 0))
        {
            text.Append("| ").AppendJoin(" | ", line.Split('\t')).Append(" |\n");
        }

        return text.ToString();
    }

    public static async Task WritePlotAsync(string gnuplot, string tablePath, string svgPath, string title)
    {
        var script = Path.ChangeExtension(svgPath, ".gp");
        await File.WriteAllTextAsync(script, $"""
            set terminal svg size 1200,600 dynamic font 'Helvetica,12' background rgb 'white'
            set output '{svgPath}'
            set title '{title}'
            set datafile separator '\t'
            set key top left
            set xlabel 'minute'
            set ylabel 'MiB'
            set y2label 'ms'
            set ytics nomirror
            set y2tics
            set yrange [0:*]
            set y2range [0:*]
            set grid
            plot '{tablePath}' using 1:8 skip 1 with linespoints lw 2 title 'RSS (MiB)', \
                 '{tablePath}' using 1:9 skip 1 with lines dt 2 title 'used\_memory (MiB)', \
                 '{tablePath}' using 1:4 skip 1 axes x1y2 with linespoints title 'p99 (ms)', \
                 '{tablePath}' using 1:10 skip 1 axes x1y2 with impulses lw 3 title 'GC pauses in the minute (ms)'
            """).ConfigureAwait(false);
        try
        {
            var (exitCode, output, errors) = await ExternalProcess.RunAsync(gnuplot, [script], TimeSpan.FromMinutes(1)).ConfigureAwait(false);
            if (exitCode != 0)
            {
                throw new HarnessException($"gnuplot failed with exit code {exitCode}:\n{ExternalProcess.Tail(output + errors)}");
            }
        }
        finally
        {
            File.Delete(script);
        }
    }

    /// <summary>Least-squares slope of RSS per minute.</summary>
    private static double Slope(List<SoakMinute> minutes)
    {
        if (minutes.Count < 2)
        {
            return 0;
        }

        var meanX = minutes.Average(static m => m.Minute);
        var meanY = minutes.Average(static m => m.RssMiB);
        var covariance = minutes.Sum(m => (m.Minute - meanX) * (m.RssMiB - meanY));
        var variance = minutes.Sum(m => (m.Minute - meanX) * (m.Minute - meanX));
        return covariance / variance;
    }
}
