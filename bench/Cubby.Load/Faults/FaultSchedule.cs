using System.Globalization;
using System.Text;

namespace Cubby.Load.Faults;

/// <summary>What one step of a <see cref="FaultSchedule"/> does, until it is healed.</summary>
internal enum FaultKind
{
    /// <summary>One silo cut off from its peers, not from its clients or PostgreSQL.</summary>
    Cut,

    /// <summary>The silos split in two groups that do not reach each other; both reach the clients and PostgreSQL.</summary>
    Halves,

    /// <summary>Two groups of silos cut from each other, and one more silo that reaches both.</summary>
    Bridge,

    /// <summary>One silo cut off from PostgreSQL alone.</summary>
    Postgres,

    /// <summary>A share of the packets between one silo and its peers dropped at random (<see cref="FaultStep.LossRate"/>).</summary>
    Loss,

    /// <summary>One silo frozen (SIGSTOP), then woken (SIGCONT).</summary>
    Pause,

    /// <summary>One silo killed (SIGKILL), then started again.</summary>
    Kill,
}

/// <summary>
/// One fault: <see cref="Kind"/> done to <see cref="Nodes"/> (and, for a split, between them and <see cref="Others"/>)
/// for <see cref="Hold"/>, then healed, then <see cref="Gap"/> without a fault once every silo answers again.
/// </summary>
internal sealed record FaultStep(FaultKind Kind, int[] Nodes, int[] Others, TimeSpan Hold, TimeSpan Gap)
{
    /// <summary>The share of packets a <see cref="FaultKind.Loss"/> drops.</summary>
    public const double LossRate = 0.3;

    public override string ToString()
    {
        var what = Kind switch
        {
            FaultKind.Cut => $"cut node {Nodes[0]} off from its peers",
            FaultKind.Halves => $"split nodes {Names(Nodes)} from {Names(Others)}",
            FaultKind.Bridge => $"split nodes {Names(Nodes)} from {Names(Others)}, the rest reaching both",
            FaultKind.Postgres => $"cut node {Nodes[0]} off from PostgreSQL",
            FaultKind.Loss => $"drop {LossRate:P0} of the packets between node {Nodes[0]} and its peers",
            FaultKind.Pause => $"pause node {Nodes[0]}",
            _ => $"kill node {Nodes[0]}, down",
        };
        return string.Create(CultureInfo.InvariantCulture, $"{what} for {Hold.TotalSeconds:0} s, then {Gap.TotalSeconds:0} s without a fault");
    }

    private static string Names(int[] nodes) => string.Join(',', nodes);
}

/// <summary>
/// Faults one after another, drawn at random from a seed: the same seed, silos, duration and kinds give the same steps,
/// so a run that found a violation can be replayed. Every kind asked for comes once, in a random order, before any
/// comes again.
/// </summary>
internal sealed class FaultSchedule
{
    private static readonly TimeSpan ShortestHold = TimeSpan.FromSeconds(5);
    private static readonly TimeSpan ShortestGap = TimeSpan.FromSeconds(5);

    private FaultSchedule(int seed, int silos, TimeSpan duration, IReadOnlyList<FaultStep> steps) =>
        (Seed, Silos, Duration, Steps) = (seed, silos, duration, steps);

    public int Seed { get; }

    public int Silos { get; }

    /// <summary>How long the steps' holds and gaps add up to at most.</summary>
    public TimeSpan Duration { get; }

    public IReadOnlyList<FaultStep> Steps { get; }

    /// <summary>Every kind there is.</summary>
    public static IReadOnlyList<FaultKind> AllKinds { get; } = Enum.GetValues<FaultKind>();

    /// <summary>
    /// Draws steps from <paramref name="seed"/> until <paramref name="duration"/> is used: each holds 5 to 15 s, and
    /// is followed by 5 to 10 s without a fault.
    /// </summary>
    /// <exception cref="HarnessException">A kind needs more silos, or the duration cannot hold one step of each kind.</exception>
    public static FaultSchedule Random(int seed, int silos, TimeSpan duration, IReadOnlyList<FaultKind> kinds)
    {
        if (kinds.Count == 0)
        {
            throw new HarnessException("A schedule needs at least one kind of fault.");
        }

        foreach (var kind in kinds)
        {
            var needs = kind switch { FaultKind.Halves => 2, FaultKind.Bridge => 3, _ => 1 };
            if (silos < needs)
            {
                throw new HarnessException($"A {kind} fault needs at least {needs} silos; the schedule has {silos}.");
            }
        }

        var random = new Random(seed);
        var firsts = kinds.Distinct().OrderBy(_ => random.Next()).ToArray();
        var steps = new List<FaultStep>();
        var used = TimeSpan.Zero;
        while (true)
        {
            var kind = steps.Count < firsts.Length ? firsts[steps.Count] : kinds[random.Next(kinds.Count)];
            var hold = ShortestHold + TimeSpan.FromSeconds(random.Next(11));
            var gap = ShortestGap + TimeSpan.FromSeconds(random.Next(6));
            if (used + hold + gap > duration)
            {
                if (steps.Count < firsts.Length)
                {
                    // Each kind at its shortest must still fit.
                    var needed = (ShortestHold + ShortestGap) * firsts.Length;
                    if (needed > duration)
                    {
                        throw new HarnessException(string.Create(CultureInfo.InvariantCulture, $"{duration.TotalSeconds:0} s cannot hold one fault of each of the {firsts.Length} kinds: give at least {needed.TotalSeconds:0} s."));
                    }

                    (hold, gap) = (ShortestHold, ShortestGap);
                }
                else
                {
                    break;
                }
            }

            steps.Add(Step(random, kind, silos, hold, gap));
            used += hold + gap;
        }

        return new FaultSchedule(seed, silos, duration, steps);
    }

    /// <summary>Parses a comma-separated list of kinds (<c>cut,halves,...</c>), or <c>all</c>.</summary>
    public static IReadOnlyList<FaultKind> ParseKinds(string text) =>
        text == "all"
            ? AllKinds
            : [.. text.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(static name =>
                Enum.TryParse<FaultKind>(name, ignoreCase: true, out var kind) ? kind : throw new HarnessException($"No fault kind '{name}': the kinds are {string.Join(',', AllKinds).ToLowerInvariant()}, or all."))];

    public override string ToString()
    {
        var text = new StringBuilder(string.Create(CultureInfo.InvariantCulture, $"schedule: seed {Seed}, {Silos} silos, {Steps.Count} steps in {Duration.TotalSeconds:0} s"));
        for (var i = 0; i < Steps.Count; i++)
        {
            text.Append(CultureInfo.InvariantCulture, $"\n  {i + 1}. {Steps[i]}");
        }

        return text.ToString();
    }

    private static FaultStep Step(Random random, FaultKind kind, int silos, TimeSpan hold, TimeSpan gap)
    {
        var shuffled = Enumerable.Range(0, silos).OrderBy(_ => random.Next()).ToArray();
        switch (kind)
        {
            case FaultKind.Halves:
            {
                // The smaller side first, one silo up to half of them.
                var size = 1 + random.Next(silos / 2);
                return new(kind, [.. shuffled[..size].Order()], [.. shuffled[size..].Order()], hold, gap);
            }

            case FaultKind.Bridge:
            {
                // One bridge; the others split with at least one on each side.
                var size = 1 + random.Next(silos - 2);
                return new(kind, [.. shuffled[..size].Order()], [.. shuffled[size..^1].Order()], hold, gap);
            }

            default:
                return new(kind, [shuffled[0]], [], hold, gap);
        }
    }
}
