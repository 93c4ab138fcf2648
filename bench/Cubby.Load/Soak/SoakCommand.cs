using System.Globalization;

namespace Cubby.Load.Soak;

/// <summary><c>soak [options]</c>: starts a silo, runs <see cref="SoakRun"/>, and writes <see cref="SoakReport"/>.</summary>
internal static class SoakCommand
{
    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter log)
    {
        if (args.Contains("--help") || args.Contains("-h"))
        {
            await log.WriteLineAsync(SoakOptions.Usage).ConfigureAwait(false);
            return 0;
        }

        if (!SoakOptions.TryParse(args, out var options, out var error))
        {
            await Console.Error.WriteLineAsync($"{error}\n\n{SoakOptions.Usage}").ConfigureAwait(false);
            return 2;
        }

        var tools = Prerequisites.ForSilo(options.SiloPath);
        using var silo = await ServerProcess.StartAsync(
            ServerKind.Cubby,
            tools,
            ["--Cubby:MaxMemoryBytes", options.Budget.ToString(CultureInfo.InvariantCulture), "--Cubby:Store", options.Store]).ConfigureAwait(false);
        await log.WriteLineAsync($"Soak: {options.Duration.TotalMinutes:0.#} min against the silo on port {silo.Port} ({options.Store} store, budget {options.Budget} bytes, {options.Callers} callers).").ConfigureAwait(false);
        var minutes = await new SoakRun(options, silo, log).RunAsync().ConfigureAwait(false);
        if (silo.HasExited)
        {
            throw new HarnessException($"The silo exited during the soak.{silo.DescribeExit()}");
        }

        var directory = options.OutputDirectory ?? Path.Combine(RepositoryRoot.Find(), "bench", "results");
        Directory.CreateDirectory(directory);
        // Named by what it measures, so a run replaces the last one of its kind (git keeps the history).
        var stem = Path.Combine(directory, string.Create(CultureInfo.InvariantCulture, $"soak-{options.Store}-{minutes.Count}min"));
        var table = SoakReport.Table(minutes);
        var summary = SoakReport.Summary(minutes, options, table);
        await File.WriteAllTextAsync(stem + ".tsv", table).ConfigureAwait(false);
        await File.WriteAllTextAsync(stem + ".md", summary).ConfigureAwait(false);
        if (tools.Gnuplot is not null)
        {
            await SoakReport.WritePlotAsync(tools.Gnuplot, stem + ".tsv", stem + ".svg", $"Cubby soak: {options.Store} store, {options.Budget / 1048576} MiB budget").ConfigureAwait(false);
        }

        await log.WriteLineAsync($"\n{summary}\nWrote {stem}.tsv, .md{(tools.Gnuplot is null ? string.Empty : ", .svg")}").ConfigureAwait(false);
        return minutes.Sum(static m => m.Errors) == 0 ? 0 : 1;
    }
}
