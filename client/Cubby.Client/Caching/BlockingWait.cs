namespace Cubby.Client.Caching;

/// <summary>
/// How the synchronous <c>IDistributedCache</c> methods wait for their call: a thread-pool thread that blocks here
/// raises the pool's minimum by one until it is released, so the pool replaces it at once. Every Orleans message needs
/// pool threads on its way (the client's outgoing queue wakes its sender on the pool, and replies are read and
/// dispatched there), queued behind whatever waits already; when callers hold every pool thread, the pool's own
/// compensation for blocked threads adds one every 25 to 250 ms, and 200 blocked Gets took 47 s. Threads added so
/// retire after the pool's idle timeout once the minimum is back.
/// </summary>
internal static class BlockingWait
{
    private static readonly Lock Gate = new();
    private static int _blocked;
    private static int _minimumWorkers;
    private static int _minimumIoThreads;

    /// <summary>The result of <paramref name="task"/>, waited for as described above.</summary>
    public static T Result<T>(Task<T> task)
    {
        Wait(task);
        return task.GetAwaiter().GetResult();
    }

    /// <summary>Waits for <paramref name="task"/> as described above, and throws what it failed with.</summary>
    public static void Wait(Task task)
    {
        if (task.IsCompleted || !Thread.CurrentThread.IsThreadPoolThread)
        {
            task.GetAwaiter().GetResult();
            return;
        }

        Blocking();
        try
        {
            task.GetAwaiter().GetResult();
        }
        finally
        {
            Released();
        }
    }

    private static void Blocking()
    {
        lock (Gate)
        {
            if (_blocked++ == 0)
            {
                // The app's own minimum, restored when the last blocked caller is released.
                ThreadPool.GetMinThreads(out _minimumWorkers, out _minimumIoThreads);
            }

            ThreadPool.SetMinThreads(_minimumWorkers + _blocked, _minimumIoThreads);
        }
    }

    private static void Released()
    {
        lock (Gate)
        {
            _blocked--;
            ThreadPool.SetMinThreads(_minimumWorkers + _blocked, _minimumIoThreads);
        }
    }
}
