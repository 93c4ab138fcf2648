namespace Cubby.Tests.Infrastructure;

/// <summary>
/// Tests that keep both cores busy for seconds (fuzzing, writing ten budgets' worth of data) would starve
/// timing-sensitive tests (a rolling restart whose calls have 5 s to answer) running beside them; so they run alone,
/// after every parallel test.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class FullLoadCollection
{
    public const string Name = "Full load";
}
