namespace Cubby.Tests.Client;

/// <summary>Bounds on every wait, generous for a loaded two-core machine; a hang fails the test instead of stalling it.</summary>
internal static class TestDeadlines
{
    /// <summary>One call that should answer at once.</summary>
    public static readonly TimeSpan Call = TimeSpan.FromSeconds(10);

    /// <summary>A whole phase of a test: many calls, or waiting for a reconnect.</summary>
    public static readonly TimeSpan Phase = TimeSpan.FromSeconds(30);
}
