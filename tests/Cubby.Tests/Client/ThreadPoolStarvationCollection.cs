namespace Cubby.Tests.Client;

/// <summary>Tests that cap or exhaust the process's thread pool run alone, after every parallel test.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ThreadPoolStarvationCollection
{
    public const string Name = "Thread pool starvation";
}
