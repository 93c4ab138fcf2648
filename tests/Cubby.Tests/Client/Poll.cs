namespace Cubby.Tests.Client;

/// <summary>Waits for a condition by polling, failing the test at a deadline instead of hanging.</summary>
internal static class Poll
{
    public static async Task UntilAsync(Func<Task<bool>> condition, TimeSpan? deadline = null, string? what = null)
    {
        var limit = deadline ?? TestDeadlines.Phase;
        var clock = System.Diagnostics.Stopwatch.StartNew();
        while (!await condition())
        {
            if (clock.Elapsed > limit)
            {
                Assert.Fail($"Still waiting after {limit}: {what ?? "condition"}");
            }

            await Task.Delay(10);
        }
    }

    public static Task UntilAsync(Func<bool> condition, TimeSpan? deadline = null, string? what = null) =>
        UntilAsync(() => Task.FromResult(condition()), deadline, what);

    /// <summary>As the others, and a failure says what <paramref name="describe"/> finds then, so it names its cause.</summary>
    public static async Task UntilAsync(Func<bool> condition, TimeSpan deadline, string what, Func<string> describe)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        while (!condition())
        {
            if (clock.Elapsed > deadline)
            {
                Assert.Fail($"Still waiting after {deadline}: {what} ({describe()})");
            }

            await Task.Delay(10);
        }
    }
}
