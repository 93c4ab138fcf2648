using System.Buffers;
using System.Net;
using System.Net.Sockets;
using Cubby.Resp;
using Microsoft.Extensions.Logging;

namespace Cubby.Client.Connections;

/// <summary>
/// One multiplexed connection to a silo, shared by every caller. Callers append encoded commands to an outgoing batch
/// and queue their pending call under one lock, so the FIFO of pending calls is in wire order; whichever caller finds
/// no send under way sends the batch, coalescing everything queued meanwhile into one write. A dedicated reader
/// thread owns the socket's lifecycle (connect, handshake, read replies, reconnect with backoff), so replies keep
/// flowing, and synchronous callers keep being answered, even when the thread pool is starved.
/// </summary>
internal sealed partial class CubbyConnection : IDisposable
{
    private readonly CubbyClientOptions _options;
    private readonly ILogger _logger;
    private readonly TimeProvider _time;
    private readonly Lock _sync = new();
    private readonly Queue<PendingCall> _pending = new();
    private readonly ManualResetEventSlim _connectedSignal = new(false);
    private readonly ManualResetEventSlim _disposedSignal = new(false);
    private readonly Thread _readerThread;
    private readonly ITimer _timeoutSweep;
    private readonly ReplyBuffer _replies;
    private readonly TaskCompletionSource _firstAttempt = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private ArrayBufferWriter<byte> _outgoing = new(4096);
    private ArrayBufferWriter<byte> _sending = new(4096);
    private TaskCompletionSource _connected = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Socket? _socket;
    private bool _sendInProgress;
    private bool _disposed;
    private Exception? _lastError;
    private volatile bool _down;

    // Calls queued and calls handed to the socket since the last failure: the difference is the tail of the FIFO
    // that never reached the wire, which a lost connection fails as safe to send again.
    private long _queuedCalls;
    private long _handedCalls;

    public CubbyConnection(string host, int port, CubbyClientOptions options, ILogger logger, TimeProvider time)
    {
        Host = host;
        Port = port;
        _options = options;
        _logger = logger;
        _time = time;
        _replies = new ReplyBuffer(options.MaxValueBytes);
        var sweepEvery = TimeSpan.FromMilliseconds(Math.Clamp(options.OperationTimeout.TotalMilliseconds / 4, 10, 250));
        _timeoutSweep = time.CreateTimer(static state => ((CubbyConnection)state!).TimeOutLateCalls(), this, sweepEvery, sweepEvery);
        _readerThread = new Thread(Run) { IsBackground = true, Name = $"Cubby reader {host}:{port}" };
        _readerThread.Start();
    }

    public string Host { get; }

    public int Port { get; }

    public bool IsConnected => _connectedSignal.IsSet;

    /// <summary>Whether the last attempt to connect failed, or the connection was lost or disposed, and no new one is up yet.</summary>
    public bool IsDown => _down;

    /// <summary>The reason of the last failure to connect or of the last lost connection.</summary>
    public Exception? LastError => _lastError;

    /// <summary>
    /// Completes (never faults) once the first attempt to connect has succeeded or failed, so a caller can tell a silo
    /// still connecting from one that is down. A synchronous wait on it is woken by the reader thread directly, so it
    /// needs no thread-pool thread.
    /// </summary>
    public Task FirstAttempt => _firstAttempt.Task;

    /// <summary>
    /// Sends a command encoded with <see cref="CommandBuffer"/> on this thread (pass <see cref="CommandBuffer.Written"/>)
    /// and returns its reply's awaitable. The command is queued before this returns, so the buffer may be reused.
    /// </summary>
    public ValueTask<T> ExecuteAsync<T>(ReadOnlySpan<byte> command, ReplyParser<T> parser, object? state, CancellationToken cancellationToken)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled<T>(cancellationToken);
        }

        if (!IsConnected)
        {
            return ConnectThenExecuteAsync(command.ToArray(), parser, state, cancellationToken);
        }

        var call = PendingCall<T>.Rent(parser, state, _time.GetTimestamp(), synchronous: false);
        call.RegisterCancellation(cancellationToken);
        Enqueue(command, call);
        return call.AsValueTask();
    }

    /// <summary>
    /// The same on the calling thread, blocking without needing the thread pool: the command was encoded with
    /// <see cref="CommandBuffer"/> on this thread and is passed as <see cref="CommandBuffer.Written"/>.
    /// </summary>
    public T Execute<T>(ReadOnlySpan<byte> command, ReplyParser<T> parser, object? state)
    {
        if (!IsConnected && !_connectedSignal.Wait(_options.ConnectTimeout))
        {
            throw NotConnected();
        }

        var call = PendingCall<T>.Rent(parser, state, _time.GetTimestamp(), synchronous: true);
        Enqueue(command, call);
        return call.Wait(_options.OperationTimeout);
    }

    public void Dispose()
    {
        lock (_sync)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
        }

        _down = true;
        _firstAttempt.TrySetResult();
        _disposedSignal.Set();
        _timeoutSweep.Dispose();
        _socket?.Dispose();
        _readerThread.Join(TimeSpan.FromSeconds(5));
        var disposed = new ObjectDisposedException(nameof(CubbyConnection), $"The connection to {Host}:{Port} was disposed.");
        FailPending(disposed, disposed);
    }

    private async ValueTask<T> ConnectThenExecuteAsync<T>(byte[] command, ReplyParser<T> parser, object? state, CancellationToken cancellationToken)
    {
        await WaitForConnectionAsync(cancellationToken).ConfigureAwait(false);
        return await ExecuteAsync(command, parser, state, cancellationToken).ConfigureAwait(false);
    }

    private async Task WaitForConnectionAsync(CancellationToken cancellationToken)
    {
        Task connected;
        lock (_sync)
        {
            connected = _connected.Task;
        }

        try
        {
            await connected.WaitAsync(_options.ConnectTimeout, _time, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            throw NotConnected();
        }
    }

    private void Enqueue(ReadOnlySpan<byte> command, PendingCall call)
    {
        lock (_sync)
        {
            if (call.IsFinished)
            {
                // Cancelled before it was sent: nothing goes on the wire.
                call.ReleaseByConnection();
                return;
            }

            if (_socket is null)
            {
                call.Fail(NotConnected());
                call.ReleaseByConnection();
                return;
            }

            _outgoing.Write(command);
            _pending.Enqueue(call);
            _queuedCalls++;
            if (_sendInProgress)
            {
                return;
            }

            _sendInProgress = true;
        }

        SendBatches();
    }

    /// <summary>Sends what is queued, then whatever was queued meanwhile, until nothing is left.</summary>
    private void SendBatches()
    {
        while (true)
        {
            Socket? socket;
            lock (_sync)
            {
                if (_outgoing.WrittenCount == 0 || _socket is null)
                {
                    _outgoing.ResetWrittenCount();
                    _sendInProgress = false;
                    return;
                }

                (_outgoing, _sending) = (_sending, _outgoing);
                _handedCalls = _queuedCalls;
                socket = _socket;
            }

            try
            {
                var bytes = _sending.WrittenSpan;
                while (!bytes.IsEmpty)
                {
                    bytes = bytes[socket.Send(bytes)..];
                }
            }
            catch (Exception exception) when (exception is SocketException or ObjectDisposedException)
            {
                // The reader thread sees the broken socket too and fails every pending call.
                Log.SendFailed(_logger, exception, Host, Port);
                socket.Dispose();
            }
            finally
            {
                _sending.ResetWrittenCount();
            }
        }
    }

    private void TimeOutLateCalls()
    {
        var timeout = _options.OperationTimeout;
        lock (_sync)
        {
            foreach (var call in _pending)
            {
                if (_time.GetElapsedTime(call.QueuedAt) < timeout)
                {
                    break;
                }

                call.Fail(new TimeoutException($"No reply from {Host}:{Port} within {timeout.TotalMilliseconds:0} ms (Cubby:Client:OperationTimeout)."));
            }
        }
    }

    /// <summary>The failure of a call that could not be sent because the connection is not up.</summary>
    public CubbyConnectionException NotConnected() =>
        new($"Not connected to the silo at {Host}:{Port}: {_lastError?.Message ?? "still connecting"}.", _lastError) { Failure = CallFailure.NotSent };

    /// <summary>Fails every pending call: those handed to the socket with <paramref name="sent"/>, the rest with <paramref name="unsent"/>.</summary>
    private void FailPending(Exception sent, Exception unsent)
    {
        PendingCall[] failed;
        long neverSent;
        lock (_sync)
        {
            failed = [.. _pending];
            neverSent = _queuedCalls - _handedCalls;
            _pending.Clear();
            _outgoing.ResetWrittenCount();
            _queuedCalls = _handedCalls = 0;
        }

        for (var i = 0; i < failed.Length; i++)
        {
            failed[i].Fail(i >= failed.Length - neverSent ? unsent : sent);
            failed[i].ReleaseByConnection();
        }
    }
}
