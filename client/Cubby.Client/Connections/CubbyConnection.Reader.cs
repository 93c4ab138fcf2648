using System.Buffers;
using System.Net;
using System.Net.Sockets;
using Cubby.Resp;
using Microsoft.Extensions.Logging;

namespace Cubby.Client.Connections;

internal sealed partial class CubbyConnection
{
    /// <summary>The reader thread: connect, handshake, read replies; on any failure fail what is in flight and retry.</summary>
    private void Run()
    {
        var backoff = _options.ReconnectMinDelay;
        while (!_disposedSignal.IsSet)
        {
            Socket? socket = null;
            try
            {
                socket = Connect();
                Handshake(socket);
                lock (_sync)
                {
                    if (_disposed)
                    {
                        return;
                    }

                    _socket = socket;
                    _connected.TrySetResult();
                }

                _down = false;
                _connectedSignal.Set();
                _firstAttempt.TrySetResult();
                Log.Connected(_logger, Host, Port);
                backoff = _options.ReconnectMinDelay;
                ReadReplies(socket);
            }
            catch (Exception exception) when (exception is SocketException or IOException or ObjectDisposedException or CubbyException or TimeoutException)
            {
                _lastError = exception;
                _down = true;
                _firstAttempt.TrySetResult();
                if (!_disposedSignal.IsSet)
                {
                    Log.ConnectionFailed(_logger, Host, Port, exception.Message);
                }
            }
            finally
            {
                Disconnect(socket);
            }

            if (_disposedSignal.Wait(backoff))
            {
                return;
            }

            backoff = TimeSpan.FromTicks(Math.Min(backoff.Ticks * 2, _options.ReconnectMaxDelay.Ticks));
        }
    }

    private void Disconnect(Socket? socket)
    {
        var wasConnected = false;
        lock (_sync)
        {
            if (_socket is not null && ReferenceEquals(_socket, socket))
            {
                _socket = null;
                wasConnected = true;
                _connected = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            }
        }

        _connectedSignal.Reset();
        socket?.Dispose();
        _replies.Clear();
        if (wasConnected)
        {
            var lost = new CubbyConnectionException($"The connection to the silo at {Host}:{Port} was lost: {_lastError?.Message}", _lastError) { Failure = CallFailure.LostInFlight };
            FailPending(lost, NotConnected());
        }
    }

    /// <summary>Connects without async I/O (so without the thread pool), bounded by the connect timeout.</summary>
    private Socket Connect()
    {
        var addresses = IPAddress.TryParse(Host, out var address) ? [address] : Dns.GetHostAddresses(Host);
        Exception? last = null;
        foreach (var candidate in addresses)
        {
            var socket = new Socket(candidate.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true, Blocking = false };
            try
            {
                try
                {
                    socket.Connect(candidate, Port);
                }
                catch (SocketException e) when (e.SocketErrorCode is SocketError.WouldBlock or SocketError.InProgress)
                {
                    if (!socket.Poll(_options.ConnectTimeout, SelectMode.SelectWrite))
                    {
                        throw new TimeoutException($"Connecting to {Host}:{Port} took longer than {_options.ConnectTimeout.TotalMilliseconds:0} ms (Cubby:Client:ConnectTimeout).");
                    }

                    var error = (SocketError)(int)socket.GetSocketOption(SocketOptionLevel.Socket, SocketOptionName.Error)!;
                    if (error != SocketError.Success)
                    {
                        throw new SocketException((int)error);
                    }
                }

                socket.Blocking = true;
                return socket;
            }
            catch (Exception exception) when (exception is SocketException or TimeoutException)
            {
                socket.Dispose();
                last = exception;
            }
        }

        throw last ?? new SocketException((int)SocketError.HostNotFound);
    }

    /// <summary>HELLO with the configured protocol (and AUTH when a password is set), answered before any call is sent.</summary>
    private void Handshake(Socket socket)
    {
        var writer = CommandBuffer.Start();
        var password = _options.Password;
        writer.WriteArrayHeader(password is null ? 2 : 5);
        writer.WriteBulkString("HELLO"u8);
        writer.WriteBulkString(_options.Protocol == RespVersion.Resp3 ? "3"u8 : "2"u8);
        if (password is not null)
        {
            writer.WriteBulkString("AUTH"u8);
            writer.WriteBulkString(_options.UserName);
            writer.WriteBulkString(password);
        }

        socket.SendTimeout = (int)_options.ConnectTimeout.TotalMilliseconds;
        socket.ReceiveTimeout = (int)_options.ConnectTimeout.TotalMilliseconds;
        socket.Send(CommandBuffer.Written);
        ReadOnlySequence<byte> reply;
        while (!_replies.TryTakeReply(out reply))
        {
            if (!_replies.Receive(socket))
            {
                throw new CubbyConnectionException($"The silo at {Host}:{Port} closed the connection during the handshake.");
            }
        }

        try
        {
            Replies.ThrowIfError(reply);
        }
        catch (CubbyServerException exception)
        {
            throw new CubbyConnectionException($"The silo at {Host}:{Port} refused the handshake: {exception.Message}", exception);
        }

        _replies.Consume(reply);
        socket.ReceiveTimeout = 0;
        socket.SendTimeout = 0;
    }

    private void ReadReplies(Socket socket)
    {
        while (true)
        {
            while (_replies.TryTakeReply(out var reply))
            {
                // Pushes (RESP3) answer no call: they are skipped, so the FIFO of pending calls stays in step.
                if (!Replies.IsPush(reply))
                {
                    PendingCall? call;
                    lock (_sync)
                    {
                        _pending.TryDequeue(out call);
                    }

                    if (call is null)
                    {
                        throw new CubbyConnectionException($"The silo at {Host}:{Port} sent a reply nobody asked for.");
                    }

                    call.Complete(reply);
                    call.ReleaseByConnection();
                }

                _replies.Consume(reply);
            }

            if (!_replies.Receive(socket))
            {
                throw new CubbyConnectionException($"The silo at {Host}:{Port} closed the connection.");
            }
        }
    }

    private static partial class Log
    {
        [LoggerMessage(1, LogLevel.Debug, "Connected to the silo at {Host}:{Port}")]
        public static partial void Connected(ILogger logger, string host, int port);

        [LoggerMessage(2, LogLevel.Warning, "Connection to the silo at {Host}:{Port} failed: {Reason}")]
        public static partial void ConnectionFailed(ILogger logger, string host, int port, string reason);

        [LoggerMessage(3, LogLevel.Debug, "Sending to the silo at {Host}:{Port} failed")]
        public static partial void SendFailed(ILogger logger, Exception exception, string host, int port);
    }
}
