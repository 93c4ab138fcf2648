using System.Diagnostics;

namespace Cubby.AppHost.Tests;

/// <summary>Waits for a condition by polling, failing the test at a deadline instead of hanging.</summary>
internal static class Poll
{
    public static async Task UntilAsync(Func<Task<bool>> condition, TimeSpan deadline, string what)
    {
        var clock = Stopwatch.StartNew();
        while (!await condition())
        {
            if (clock.Elapsed > deadline)
            {
                Assert.Fail($"Still waiting after {deadline.TotalSeconds:0} s: {what}");
            }

            await Task.Delay(100);
        }
    }

    public static Task UntilAsync(Func<bool> condition, TimeSpan deadline, string what) =>
        UntilAsync(() => Task.FromResult(condition()), deadline, what);
}
