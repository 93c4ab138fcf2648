using System.Globalization;

namespace Cubby.Load.Soak;

/// <summary>What a soak runs and where it writes it, from the command line after <c>soak</c>.</summary>
internal sealed record SoakOptions
{
    public const string Usage = """
        Cubby soak: one silo with a small budget under mixed load for N minutes; RSS, GC pauses, p99 and errors per minute.

        Usage: dotnet run --project bench/Cubby.Load -c Release -- soak [options]
          --minutes N      how long (default 30)
          --budget BYTES   the silo's Cubby:MaxMemoryBytes (default 67108864), so the load evicts
          --store KIND     native or managed (default native)
          --callers N      concurrent callers, each reconnecting after 500-3000 calls (default 16)
          --out DIR        where soak-STORE-Nmin.tsv, .md and .svg go (default: bench/results in the repository)
          --silo PATH      Cubby.Silo.dll to run (default: the one built beside the harness)
        """;

    public TimeSpan Duration { get; init; } = TimeSpan.FromMinutes(30);

    public long Budget { get; init; } = 64L * 1024 * 1024;

    public string Store { get; init; } = "native";

    public int Callers { get; init; } = 16;

    public string? OutputDirectory { get; init; }

    public string? SiloPath { get; init; }

    /// <summary>Keys the load spreads over: several budgets' worth at the mean value size, so writes evict.</summary>
    public int KeySpace { get; init; } = 200_000;

    public static bool TryParse(IReadOnlyList<string> args, out SoakOptions options, out string? error)
    {
        options = new SoakOptions();
        error = null;
        for (var i = 0; i < args.Count; i++)
        {
            var name = args[i];
            string Value() => i + 1 < args.Count ? args[++i] : throw new FormatException($"{name} needs a value.");
            try
            {
                options = name switch
                {
                    "--minutes" => options with { Duration = TimeSpan.FromMinutes(double.Parse(Value(), CultureInfo.InvariantCulture)) },
                    "--budget" => options with { Budget = long.Parse(Value(), CultureInfo.InvariantCulture) },
                    "--store" => options with { Store = Value() is var store && store is "native" or "managed" ? store : throw new FormatException("must be native or managed") },
                    "--callers" => options with { Callers = int.Parse(Value(), CultureInfo.InvariantCulture) },
                    "--out" => options with { OutputDirectory = Path.GetFullPath(Value()) },
                    "--silo" => options with { SiloPath = Path.GetFullPath(Value()) },
                    _ => throw new FormatException("unknown option"),
                };
            }
            catch (FormatException exception)
            {
                error = $"{name}: {exception.Message}";
                return false;
            }
        }

        if (options.Duration <= TimeSpan.Zero || options.Budget < 1 << 20 || options.Callers < 1)
        {
            error = "--minutes must be positive, --budget at least 1048576 and --callers at least 1.";
            return false;
        }

        return true;
    }
}
