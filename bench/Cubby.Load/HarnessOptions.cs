using System.Globalization;

namespace Cubby.Load;

/// <summary>What a run measures and where it writes it, from the command line.</summary>
internal sealed record HarnessOptions
{
    public const string Usage = """
        Cubby load harness: Cubby, redis-server and garnet-server on loopback, the same load against each, interleaved.

        Usage: dotnet run --project bench/Cubby.Load -c Release -- [options]
          --quick              one short round (what the test runs)
          --install            only find or install redis-server, redis-benchmark, gnuplot and garnet-server, then exit
          --rounds N           rounds; each starts every server fresh and runs each workload on one server after
                               another (default 3, 1 with --quick)
          --out DIR            where the .json, .md and .svg go (default: bench/results in the repository), named
                               side-by-side, with -SERVERS for a subset, -pinned with --pin, -quick with --quick;
                               a run replaces the last one of its kind (git keeps the history)
          --duration SECONDS   measured time of each .NET workload phase (default 10, 1 with --quick)
          --servers LIST       a subset of cubby,redis,garnet (default all three)
          --silo PATH          Cubby.Silo.dll to run (default: the one built beside the harness)
          --garnet PATH        garnet-server to run (default: .tools/garnet, installed there if missing)
          --pin                each server on core 0, the load generators on the other cores (2 or more cores)

        Soak instead: dotnet run --project bench/Cubby.Load -c Release -- soak --help
        """;

    public bool Quick { get; init; }

    /// <summary>Only install what is missing, and run nothing.</summary>
    public bool InstallOnly { get; init; }

    public int Rounds { get; init; } = 3;

    public string? OutputDirectory { get; init; }

    /// <summary>
    /// The report's file name without extension: what the run measures, no date or machine (the report says both), so a
    /// run replaces the last one of its kind in <c>bench/results</c> and git keeps the history.
    /// </summary>
    public string ReportName =>
        "side-by-side"
        + (Servers.Count == 3 ? string.Empty : "-" + string.Join("-", Servers.Select(static server => server.ToString().ToLowerInvariant())))
        + (PinServer ? "-pinned" : string.Empty)
        + (Quick ? "-quick" : string.Empty);

    public TimeSpan Duration { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>Unmeasured load before each measured .NET phase, so JIT and connection setup are not in the numbers.</summary>
    public TimeSpan Warmup => Quick ? TimeSpan.FromMilliseconds(250) : TimeSpan.FromSeconds(1);

    /// <summary>
    /// How old each server is, at least, when its first workload starts: after the warm-up it waits, idle, until then.
    /// A silo runs Orleans' and its metrics' periodic work for the first time about 30 s and 60 s after
    /// start, about a second of CPU each time, which is start-up, not the steady state the workloads compare (2026-11-28:
    /// a fresh silo compiled 1,240 and 707 methods in the 2 s windows of pipelined GETs at 31 and 61 s of age, and ran
    /// 10-25 % fewer GETs a second in them). Every server waits alike; a quick run does not wait.
    /// </summary>
    public TimeSpan SettleAge => Quick ? TimeSpan.Zero : TimeSpan.FromSeconds(70);

    public IReadOnlyList<ServerKind> Servers { get; init; } = [ServerKind.Cubby, ServerKind.Redis, ServerKind.Garnet];

    public string? SiloPath { get; init; }

    public string? GarnetPath { get; init; }

    /// <summary>Runs each server on core 0 and the load on the others (<see cref="CorePinning"/>).</summary>
    public bool PinServer { get; init; }

    public int Callers { get; init; } = 64;

    public int Keys { get; init; } = 10_000;

    public int ValueBytes { get; init; } = 1024;

    public int TimeToLiveMs { get; init; } = 60_000;

    public static bool TryParse(IReadOnlyList<string> args, out HarnessOptions options, out string? error)
    {
        options = new HarnessOptions();
        error = null;
        int? rounds = null;
        double? duration = null;
        for (var i = 0; i < args.Count; i++)
        {
            var name = args[i];
            string Value() => i + 1 < args.Count ? args[++i] : throw new FormatException($"{name} needs a value.");
            try
            {
                switch (name)
                {
                    case "--quick":
                        options = options with { Quick = true };
                        break;
                    case "--install":
                        options = options with { InstallOnly = true };
                        break;
                    case "--rounds":
                        rounds = int.Parse(Value(), CultureInfo.InvariantCulture);
                        break;
                    case "--out":
                        options = options with { OutputDirectory = Path.GetFullPath(Value()) };
                        break;
                    case "--duration":
                        duration = double.Parse(Value(), CultureInfo.InvariantCulture);
                        break;
                    case "--servers":
                        options = options with { Servers = ParseServers(Value()) };
                        break;
                    case "--silo":
                        options = options with { SiloPath = Path.GetFullPath(Value()) };
                        break;
                    case "--garnet":
                        options = options with { GarnetPath = Path.GetFullPath(Value()) };
                        break;
                    case "--pin":
                        options = options with { PinServer = true };
                        break;
                    default:
                        error = $"Unknown option {name}.";
                        return false;
                }
            }
            catch (FormatException exception)
            {
                error = $"{name}: {exception.Message}";
                return false;
            }
        }

        options = options with
        {
            Rounds = rounds ?? (options.Quick ? 1 : 3),
            Duration = TimeSpan.FromSeconds(duration ?? (options.Quick ? 1 : 10)),
        };
        if (options.Rounds < 1 || options.Duration <= TimeSpan.Zero || options.Duration > TimeSpan.FromMinutes(5))
        {
            error = "--rounds must be at least 1 and --duration between 0 and 300 seconds.";
            return false;
        }

        if (options.PinServer && Environment.ProcessorCount < 2)
        {
            error = "--pin needs at least 2 cores: one for the server, the others for the load.";
            return false;
        }

        return true;
    }

    private static ServerKind[] ParseServers(string list) =>
        [.. list.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(name => Enum.TryParse<ServerKind>(name, ignoreCase: true, out var kind) ? kind : throw new FormatException($"unknown server '{name}'"))
            .Distinct()];
}
