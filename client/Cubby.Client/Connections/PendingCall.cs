using System.Buffers;

namespace Cubby.Client.Connections;

/// <summary>A command written to a connection and waiting for its reply, in the connection's FIFO.</summary>
internal abstract class PendingCall
{
    /// <summary>When the command was queued (<see cref="TimeProvider.GetTimestamp"/>), for timeouts.</summary>
    public long QueuedAt { get; protected set; }

    /// <summary>Whether the call has its outcome (a reply, an error, a timeout or a cancellation).</summary>
    public abstract bool IsFinished { get; }

    /// <summary>Gives the call its reply. A call already finished (timed out, cancelled) discards it.</summary>
    public abstract void Complete(ReadOnlySequence<byte> reply);

    /// <summary>Finishes the call with an error unless it has already finished.</summary>
    public abstract void Fail(Exception exception);

    /// <summary>The connection is done with the call (its reply read, or the connection lost).</summary>
    public abstract void ReleaseByConnection();
}
