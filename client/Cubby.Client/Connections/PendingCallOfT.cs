using System.Buffers;
using System.Collections.Concurrent;
using System.Threading.Tasks.Sources;

namespace Cubby.Client.Connections;

/// <summary>
/// A pooled pending call: the awaitable behind a <see cref="ValueTask{T}"/>, so a call allocates no task of its own.
/// It has two owners, the caller and the connection, and returns to the pool when both are done with it: a call
/// that timed out or was cancelled stays in the connection's FIFO until its reply arrives, which keeps the stream in
/// step.
/// </summary>
internal sealed class PendingCall<T> : PendingCall, IValueTaskSource<T>
{
    private const int MaxPooled = 1024;
    private static readonly ConcurrentQueue<PendingCall<T>> Pool = new();

    private ManualResetValueTaskSourceCore<T> _core = new() { RunContinuationsAsynchronously = true };
    private ReplyParser<T> _parser = null!;
    private object? _state;
    private int _finished;
    private int _owners;
    private ManualResetEventSlim? _syncSignal;
    private bool _waitsSynchronously;
    private CancellationTokenRegistration _cancellation;

    private PendingCall()
    {
    }

    public static PendingCall<T> Rent(ReplyParser<T> parser, object? state, long now, bool synchronous)
    {
        if (!Pool.TryDequeue(out var call))
        {
            call = new PendingCall<T>();
        }

        call._parser = parser;
        call._state = state;
        call._owners = 2;
        call._finished = 0;
        call.QueuedAt = now;
        call._waitsSynchronously = synchronous;
        if (synchronous)
        {
            call._syncSignal ??= new ManualResetEventSlim(false, spinCount: 0);
            call._syncSignal.Reset();
        }

        return call;
    }

    public override bool IsFinished => Volatile.Read(ref _finished) != 0;

    public ValueTask<T> AsValueTask() => new(this, _core.Version);

    /// <summary>Cancels the call (not the command: its reply is still read and discarded) when the token fires.</summary>
    public void RegisterCancellation(CancellationToken cancellationToken)
    {
        if (cancellationToken.CanBeCanceled)
        {
            _cancellation = cancellationToken.UnsafeRegister(
                static (state, token) => ((PendingCall<T>)state!).Finish(default, new OperationCanceledException(token)),
                this);
        }
    }

    /// <summary>Blocks until the reply (or <paramref name="timeout"/>) without needing a thread-pool thread.</summary>
    public T Wait(TimeSpan timeout)
    {
        if (!_syncSignal!.Wait(timeout))
        {
            Finish(default, new TimeoutException($"No reply within {timeout.TotalMilliseconds:0} ms (Cubby:Client:OperationTimeout)."));
        }

        return GetResult(_core.Version);
    }

    public override void Complete(ReadOnlySequence<byte> reply)
    {
        if (Volatile.Read(ref _finished) != 0)
        {
            return;
        }

        T result;
        try
        {
            result = _parser(reply, _state);
        }
        catch (Exception exception)
        {
            Finish(default, exception);
            return;
        }

        Finish(result, null);
    }

    public override void Fail(Exception exception) => Finish(default, exception);

    public override void ReleaseByConnection() => Release();

    public T GetResult(short token)
    {
        try
        {
            return _core.GetResult(token);
        }
        finally
        {
            Release();
        }
    }

    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);

    private void Finish(T? result, Exception? error)
    {
        if (Interlocked.Exchange(ref _finished, 1) != 0)
        {
            return;
        }

        _cancellation.Unregister();
        if (error is null)
        {
            _core.SetResult(result!);
        }
        else
        {
            _core.SetException(error);
        }

        if (_waitsSynchronously)
        {
            _syncSignal!.Set();
        }
    }

    private void Release()
    {
        if (Interlocked.Decrement(ref _owners) != 0)
        {
            return;
        }

        // Disposing waits out a cancellation callback still running, so none can touch the call once it is reused.
        _cancellation.Dispose();
        _cancellation = default;
        _core.Reset();
        _parser = null!;
        _state = null;
        if (Pool.Count < MaxPooled)
        {
            Pool.Enqueue(this);
        }
    }
}
