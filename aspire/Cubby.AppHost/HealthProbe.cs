using System.Diagnostics;

namespace Cubby.AppHost;

/// <summary>Polls a check until it passes, the resource's start timeout runs out, or the run is cancelled.</summary>
internal static class HealthProbe
{
    private static readonly TimeSpan Interval = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan AttemptTimeout = TimeSpan.FromSeconds(5);
    private static readonly HttpClient Http = new() { Timeout = Timeout.InfiniteTimeSpan };

    /// <summary>Waits until <paramref name="url"/> answers 200 OK.</summary>
    public static Task WaitForHttpAsync(string resource, Uri url, TimeSpan timeout, CancellationToken cancellationToken) =>
        WaitAsync(resource, url.ToString(), timeout, async attempt =>
        {
            using var response = await Http.GetAsync(url, attempt).ConfigureAwait(false);
            return response.IsSuccessStatusCode ? null : $"HTTP {(int)response.StatusCode}";
        }, cancellationToken);

    /// <summary>Waits until <paramref name="check"/> returns null (healthy) instead of why not, or stops throwing.</summary>
    public static async Task WaitAsync(string resource, string target, TimeSpan timeout, Func<CancellationToken, Task<string?>> check, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        string? last = "no answer yet";
        while (Stopwatch.GetElapsedTime(started) < timeout)
        {
            using var attempt = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            attempt.CancelAfter(AttemptTimeout);
            try
            {
                last = await check(attempt.Token).ConfigureAwait(false);
                if (last is null)
                {
                    return;
                }
            }
            catch (Exception exception) when (!cancellationToken.IsCancellationRequested && exception is not OutOfMemoryException)
            {
                last = exception.Message;
            }

            await Task.Delay(Interval, cancellationToken).ConfigureAwait(false);
        }

        throw new TimeoutException($"{resource} was not healthy at {target} within {timeout.TotalSeconds:0} s (last: {last}).");
    }
}
