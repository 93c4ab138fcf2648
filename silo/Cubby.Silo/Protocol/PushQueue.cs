using System.Collections.Concurrent;
using Cubby.Resp;

namespace Cubby.Silo.Protocol;

/// <summary>
/// What waits to be pushed to one connection (pub/sub messages, tracking invalidations). Senders on any thread queue
/// pushes; the connection writes them after its current batch of replies, woken by <paramref name="wake"/> when it waits
/// for input. A connection that lets more than <paramref name="limitBytes"/> wait (it stopped reading) is closed through
/// <paramref name="close"/>, as Redis closes a client over its pub/sub output buffer limit, so one stalled reader cannot
/// grow the silo's memory.
/// </summary>
internal sealed class PushQueue(long limitBytes, Action wake, Action<string> close)
{
    private readonly ConcurrentQueue<Push> _waiting = new();
    private long _waitingBytes;
    private int _wakeRequested;
    private int _closed;

    /// <summary>Whether the connection was closed for falling behind, or has closed.</summary>
    public bool IsClosed => Volatile.Read(ref _closed) != 0;

    /// <summary>
    /// Queues <paramref name="push"/> and wakes the connection; when that takes the queue over its limit, closes the
    /// connection instead (once) and drops what waited.
    /// </summary>
    public void Enqueue(Push push)
    {
        if (IsClosed)
        {
            return;
        }

        if (Interlocked.Add(ref _waitingBytes, push.Bytes) > limitBytes)
        {
            if (Interlocked.Exchange(ref _closed, 1) == 0)
            {
                _waiting.Clear();
                close($"more than {limitBytes} bytes of pushed messages waited for it (Cubby:PubSubBufferLimitBytes)");
            }

            return;
        }

        _waiting.Enqueue(push);
        if (Interlocked.Exchange(ref _wakeRequested, 1) == 0)
        {
            wake();
        }
    }

    /// <summary>Marks the connection closed: nothing more is queued.</summary>
    public void Closed()
    {
        Volatile.Write(ref _closed, 1);
        _waiting.Clear();
    }

    /// <summary>Writes every waiting push, in the order queued.</summary>
    public void WriteWaiting(RespWriter writer)
    {
        Volatile.Write(ref _wakeRequested, 0);
        while (_waiting.TryDequeue(out var push))
        {
            Interlocked.Add(ref _waitingBytes, -push.Bytes);
            push.Write(writer);
        }
    }
}
