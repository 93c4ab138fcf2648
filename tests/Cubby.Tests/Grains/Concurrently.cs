using System.Collections.Concurrent;

namespace Cubby.Tests.Grains;

/// <summary>Runs bodies on threads of their own, released together, and fails the test with whatever they threw.</summary>
internal static class Concurrently
{
    public static void Run(int threadCount, Action<int> body)
    {
        var failures = new ConcurrentQueue<Exception>();
        using var start = new Barrier(threadCount);
        var threads = Enumerable.Range(0, threadCount).Select(index => new Thread(() =>
        {
            try
            {
                start.SignalAndWait();
                body(index);
            }
#pragma warning disable CA1031 // Every failure must reach the test thread rather than crash the test host.
            catch (Exception exception)
#pragma warning restore CA1031
            {
                failures.Enqueue(exception);
            }
        })).ToList();

        threads.ForEach(thread => thread.Start());
        threads.ForEach(thread => thread.Join());
        if (!failures.IsEmpty)
        {
            throw new AggregateException(failures);
        }
    }
}
