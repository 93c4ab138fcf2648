namespace Cubby.Tests.Fuzz;

/// <summary>
/// Fuzzing keeps both cores busy for seconds, which would starve timing-sensitive tests (a rolling restart whose
/// calls have 5 s to answer) running beside it; so it runs alone, after every parallel test.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class FuzzCollection
{
    public const string Name = "Fuzzing";
}
