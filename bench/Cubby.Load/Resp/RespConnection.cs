using System.Buffers;
using System.Net;
using System.Net.Sockets;

namespace Cubby.Load.Resp;

/// <summary>
/// The harness's own RESP client for servers that lack Cubby's commands: one multiplexed loopback connection shared
/// by every caller, built the way Cubby's client is (callers append commands to an outgoing batch under a lock and
/// whoever finds no send under way sends it; a dedicated reader thread completes pooled awaitables in FIFO order, with
/// continuations on the thread pool), so the transports compared differ in the server, not in the client's design.
/// </summary>
internal sealed class RespConnection : IDisposable
{
    private readonly Socket _socket;
    private readonly Lock _sync = new();
    private readonly Queue<ReplySlot> _pending = new();
    private readonly Thread _reader;
    private ArrayBufferWriter<byte> _outgoing = new(64 * 1024);
    private ArrayBufferWriter<byte> _sending = new(64 * 1024);
    private bool _sendInProgress;
    private Exception? _failure;

    private RespConnection(Socket socket, int port)
    {
        _socket = socket;
        _reader = new Thread(ReadReplies) { IsBackground = true, Name = $"RESP reader 127.0.0.1:{port}" };
        _reader.Start();
    }

    public static async Task<RespConnection> ConnectAsync(int port, CancellationToken cancellationToken)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(new IPEndPoint(IPAddress.Loopback, port), cancellationToken).ConfigureAwait(false);
            return new RespConnection(socket, port);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    /// <summary>Queues an encoded command; the span may be reused once this returns.</summary>
    public ValueTask<RespReply> SendAsync(ReadOnlySpan<byte> command)
    {
        var slot = ReplySlot.Rent();
        lock (_sync)
        {
            if (_failure is not null)
            {
                slot.Fail(new IOException("The connection has failed.", _failure));
                return slot.Reply;
            }

            _outgoing.Write(command);
            _pending.Enqueue(slot);
            if (_sendInProgress)
            {
                return slot.Reply;
            }

            _sendInProgress = true;
        }

        SendBatches();
        return slot.Reply;
    }

    /// <summary>Sends a command given as text arguments and fails on an error reply.</summary>
    public async Task<RespReply> CallAsync(params string[] arguments)
    {
        var reply = await SendAsync(CommandWriter.Encode(arguments)).ConfigureAwait(false);
        return reply.Kind == RespReplyKind.Error
            ? throw new InvalidOperationException($"{arguments[0]} failed: {reply.Text}")
            : reply;
    }

    public void Dispose()
    {
        Fail(new ObjectDisposedException(nameof(RespConnection)));
        _reader.Join(TimeSpan.FromSeconds(5));
    }

    private void SendBatches()
    {
        while (true)
        {
            lock (_sync)
            {
                if (_outgoing.WrittenCount == 0 || _failure is not null)
                {
                    _outgoing.ResetWrittenCount();
                    _sendInProgress = false;
                    return;
                }

                (_outgoing, _sending) = (_sending, _outgoing);
            }

            try
            {
                var bytes = _sending.WrittenSpan;
                while (!bytes.IsEmpty)
                {
                    bytes = bytes[_socket.Send(bytes)..];
                }
            }
            catch (Exception exception) when (exception is SocketException or ObjectDisposedException)
            {
                Fail(exception);
            }
            finally
            {
                _sending.ResetWrittenCount();
            }
        }
    }

    private void ReadReplies()
    {
        var buffer = new byte[256 * 1024];
        int start = 0, end = 0;
        try
        {
            while (true)
            {
                if (end == buffer.Length)
                {
                    if (start > 0)
                    {
                        buffer.AsSpan(start, end - start).CopyTo(buffer);
                        (start, end) = (0, end - start);
                    }
                    else
                    {
                        Array.Resize(ref buffer, buffer.Length * 2);
                    }
                }

                var received = _socket.Receive(buffer, end, buffer.Length - end, SocketFlags.None);
                if (received == 0)
                {
                    throw new IOException("The server closed the connection.");
                }

                end += received;
                int used;
                while (start < end && (used = RespReplyReader.TryRead(buffer.AsSpan(start, end - start), out var reply)) > 0)
                {
                    start += used;
                    ReplySlot slot;
                    lock (_sync)
                    {
                        if (!_pending.TryDequeue(out slot!))
                        {
                            throw new InvalidDataException($"A reply ({reply}) arrived with no command waiting for it.");
                        }
                    }

                    slot.Complete(reply);
                }

                if (start == end)
                {
                    (start, end) = (0, 0);
                }
            }
        }
        catch (Exception exception) when (exception is SocketException or IOException or ObjectDisposedException or InvalidDataException)
        {
            Fail(exception);
        }
    }

    private void Fail(Exception exception)
    {
        ReplySlot[] failed;
        lock (_sync)
        {
            _failure ??= exception;
            failed = [.. _pending];
            _pending.Clear();
        }

        _socket.Dispose();
        foreach (var slot in failed)
        {
            slot.Fail(new IOException("The connection has failed.", exception));
        }
    }
}
