namespace Cubby.Client.Routing;

/// <summary>One run of the view refresher that any number of callers wait for, synchronously or not.</summary>
internal sealed class RefreshCycle
{
    private readonly TaskCompletionSource _completed = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Why no view was read, once the cycle is over; null when one was.</summary>
    public Exception? Failure { get; private set; }

    /// <summary>Completes (never faults) when the cycle is over.</summary>
    public Task Completed => _completed.Task;

    /// <summary>
    /// Blocks until the cycle is over; false after <paramref name="timeout"/>. The blocked thread is woken by the
    /// completing one directly, so this needs no thread-pool thread.
    /// </summary>
    public bool Wait(TimeSpan timeout) => _completed.Task.Wait(timeout);

    public void Finish(Exception? failure)
    {
        Failure = failure;
        _completed.TrySetResult();
    }
}
