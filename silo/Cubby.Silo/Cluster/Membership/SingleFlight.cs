namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// Runs a piece of work one at a time: a request while it runs makes it run once more afterwards, however many
/// requests came meanwhile. Requests start the work on the requesting thread.
/// </summary>
internal sealed class SingleFlight(Func<CancellationToken, Task> work, CancellationToken stopping)
{
    private int _requests;

    /// <summary>Runs the work now, or once more after the run under way.</summary>
    public void Request()
    {
        if (!stopping.IsCancellationRequested && Interlocked.Increment(ref _requests) == 1)
        {
            _ = RunAsync();
        }
    }

    private async Task RunAsync()
    {
        while (true)
        {
            var seen = Volatile.Read(ref _requests);
            try
            {
                await work(stopping).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (stopping.IsCancellationRequested)
            {
                return;
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                // The work logs its own failures; this only keeps one slip from stopping every later run.
            }

            if (Interlocked.Add(ref _requests, -seen) == 0 || stopping.IsCancellationRequested)
            {
                return;
            }
        }
    }
}
