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
}
