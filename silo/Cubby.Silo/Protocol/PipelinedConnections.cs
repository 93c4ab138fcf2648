namespace Cubby.Silo.Protocol;

/// <summary>
/// Decides where a pipelining connection runs its commands. With inline scheduling every connection's commands run on
/// the socket event thread that read them: the fastest way for a client that sends a command or a few and waits. When
/// several connections pipeline deeply at once, though, that one thread runs each batch in turn while the others' bytes
/// wait, and it is the silo's bottleneck. Then each of them runs its batches on the thread pool: the event thread goes
/// on reading, and a second core runs commands too. A pool hop costs a wake-up, so only a deep batch is worth one, and
/// a lone pipelining connection (a StackExchange.Redis multiplexer with many callers) stays inline: nothing waits
/// behind it.
/// </summary>
internal sealed class PipelinedConnections
{
    /// <summary>Commands in a connection's last read that make it a pipelining connection.</summary>
    public const int DeepBatch = 8;

    /// <summary>Pipelining connections it takes before their batches leave the event thread.</summary>
    public const int ToOffload = 2;

    private int _count;

    /// <summary>Connections whose last read held at least <see cref="DeepBatch"/> commands.</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>
    /// Records that a connection's last read ran <paramref name="executed"/> commands; <paramref name="pipelining"/> is
    /// that connection's own flag, and counts in <see cref="Count"/> while set.
    /// </summary>
    public void Ran(ref bool pipelining, int executed)
    {
        var now = executed >= DeepBatch;
        if (now != pipelining)
        {
            pipelining = now;
            Interlocked.Add(ref _count, now ? 1 : -1);
        }
    }

    /// <summary>Takes a closed connection out of the count.</summary>
    public void Closed(ref bool pipelining) => Ran(ref pipelining, 0);

    /// <summary>
    /// Whether a connection whose flag is <paramref name="pipelining"/> should move its next batch off the current
    /// thread: it pipelines, another connection does too, and the batch would run on an event thread, not a pool thread.
    /// </summary>
    public bool ShouldOffload(bool pipelining) =>
        pipelining && Count >= ToOffload && !Thread.CurrentThread.IsThreadPoolThread;
}
