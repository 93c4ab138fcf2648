using System.Collections.Concurrent;
using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Silo.PubSub;

/// <summary>
/// One connection's channel and pattern subscriptions, and the messages published to them that wait to be written.
/// Publishers on any thread queue messages; the connection writes them after its current batch of replies, woken by
/// <paramref name="wake"/> when it waits for input. A connection that lets more than <paramref name="limitBytes"/>
/// wait (it stopped reading) is closed through <paramref name="close"/>, as Redis closes a pub/sub client over its
/// output buffer limit, so one stalled reader cannot grow the silo's memory.
/// </summary>
internal sealed class Subscriber(long limitBytes, Action wake, Action<string> close)
{
    private readonly ConcurrentQueue<PublishedMessage> _waiting = new();
    private long _waitingBytes;
    private int _wakeRequested;
    private int _closed;

    /// <summary>The channels subscribed to by name; changed only under <see cref="PubSubHub"/>'s lock.</summary>
    public HashSet<byte[]> Channels { get; } = new(ByteStringComparer.Instance);

    /// <summary>The patterns subscribed to; changed only under <see cref="PubSubHub"/>'s lock.</summary>
    public HashSet<byte[]> Patterns { get; } = new(ByteStringComparer.Instance);

    /// <summary>Channels and patterns together: the count SUBSCRIBE and its kin reply with.</summary>
    public int Count => Channels.Count + Patterns.Count;

    /// <summary>
    /// Queues <paramref name="message"/> and wakes the connection; when that takes the queue over its limit, closes
    /// the connection instead (once) and drops what waited.
    /// </summary>
    public void Enqueue(PublishedMessage message)
    {
        if (Volatile.Read(ref _closed) != 0)
        {
            return;
        }

        if (Interlocked.Add(ref _waitingBytes, message.Bytes) > limitBytes)
        {
            if (Interlocked.Exchange(ref _closed, 1) == 0)
            {
                _waiting.Clear();
                close($"a pub/sub subscriber fell more than {limitBytes} bytes of messages behind (Cubby:PubSubBufferLimitBytes)");
            }

            return;
        }

        _waiting.Enqueue(message);
        if (Interlocked.Exchange(ref _wakeRequested, 1) == 0)
        {
            wake();
        }
    }

    /// <summary>Writes every waiting message, in the order published, as Redis's <c>message</c> and <c>pmessage</c> pushes.</summary>
    public void WriteWaiting(RespWriter writer)
    {
        Volatile.Write(ref _wakeRequested, 0);
        while (_waiting.TryDequeue(out var message))
        {
            Interlocked.Add(ref _waitingBytes, -message.Bytes);
            if (message.Pattern is { } pattern)
            {
                writer.WritePushHeader(4);
                writer.WriteBulkString("pmessage"u8);
                writer.WriteBulkString(pattern);
            }
            else
            {
                writer.WritePushHeader(3);
                writer.WriteBulkString("message"u8);
            }

            writer.WriteBulkString(message.Channel);
            writer.WriteBulkString(message.Payload);
        }
    }
}
