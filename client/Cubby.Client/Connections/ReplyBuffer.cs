using System.Buffers;
using System.Net.Sockets;
using Cubby.Resp;

namespace Cubby.Client.Connections;

/// <summary>
/// The reader thread's receive buffer: bytes arrive at the end, whole replies are taken from the start. It grows to
/// fit the largest reply and shrinks back once that reply is consumed.
/// </summary>
internal sealed class ReplyBuffer(int maxValueBytes)
{
    private const int InitialSize = 16 * 1024;
    private readonly RespLimits _limits = new()
    {
        MaxBulkBytes = Math.Max(maxValueBytes, 1024 * 1024),
        MaxArrayLength = 64 * 1024 * 1024,
        MaxNestingDepth = 64,
    };

    private byte[] _buffer = new byte[InitialSize];
    private int _start;
    private int _end;

    public RespLimits Limits => _limits;

    public void Clear()
    {
        _start = _end = 0;
        if (_buffer.Length > InitialSize)
        {
            _buffer = new byte[InitialSize];
        }
    }

    /// <summary>Receives more bytes; false when the peer closed the connection.</summary>
    public bool Receive(Socket socket)
    {
        if (_end == _buffer.Length)
        {
            MakeRoom();
        }

        var received = socket.Receive(_buffer, _end, _buffer.Length - _end, SocketFlags.None);
        _end += received;
        return received > 0;
    }

    /// <summary>The next whole reply, if it has arrived; <see cref="Consume"/> it once handled.</summary>
    public bool TryTakeReply(out ReadOnlySequence<byte> reply)
    {
        var available = new ReadOnlySequence<byte>(_buffer, _start, _end - _start);
        switch (RespReplyReader.TrySkip(available, _limits, out var end, out var error))
        {
            case RespParseStatus.Complete:
                reply = available.Slice(0, end);
                return true;
            case RespParseStatus.Incomplete:
                reply = default;
                return false;
            default:
                throw new CubbyConnectionException($"The silo sent a malformed reply: {error}");
        }
    }

    public void Consume(ReadOnlySequence<byte> reply)
    {
        _start += (int)reply.Length;
        if (_start == _end)
        {
            _start = _end = 0;
            if (_buffer.Length > InitialSize * 64)
            {
                _buffer = new byte[InitialSize];
            }
        }
    }

    private void MakeRoom()
    {
        if (_start > 0)
        {
            Buffer.BlockCopy(_buffer, _start, _buffer, 0, _end - _start);
            _end -= _start;
            _start = 0;
            return;
        }

        Array.Resize(ref _buffer, (int)Math.Min((long)_buffer.Length * 2, Array.MaxLength));
    }
}
