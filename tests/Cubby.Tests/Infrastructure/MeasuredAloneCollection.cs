namespace Cubby.Tests.Infrastructure;

/// <summary>
/// Tests that count this thread's allocations: run beside the rest of the suite, other tests' collections trim the
/// shared array pool, and a rent that refills it shows in the count although the code measured allocated nothing. So
/// they run alone, after every parallel test.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class MeasuredAloneCollection
{
    public const string Name = "Measured alone";
}
