using System.Buffers;
using System.IO.Pipelines;
using System.Net.Sockets;
using Cubby.Resp;

namespace Cubby.Load.Tracking;

/// <summary>One RESP connection that reads replies and pushes alike, for the measurements that wait for pushes.</summary>
internal sealed class RespConnection : IAsyncDisposable
{
    private readonly Socket _socket;
    private readonly NetworkStream _stream;
    private readonly PipeReader _reader;

    private RespConnection(Socket socket)
    {
        _socket = socket;
        _stream = new NetworkStream(socket, ownsSocket: false);
        _reader = PipeReader.Create(_stream);
    }

    public static async Task<RespConnection> ConnectAsync(int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync("127.0.0.1", port).ConfigureAwait(false);
        return new RespConnection(socket);
    }

    public async Task SendAsync(params string[] arguments)
    {
        var buffer = new ArrayBufferWriter<byte>();
        var writer = new RespWriter(buffer);
        writer.WriteArrayHeader(arguments.Length);
        foreach (var argument in arguments)
        {
            writer.WriteBulkString(argument);
        }

        await _stream.WriteAsync(buffer.WrittenMemory).ConfigureAwait(false);
    }

    public async Task<RespValue> CallAsync(params string[] arguments)
    {
        await SendAsync(arguments).ConfigureAwait(false);
        return await ReadAsync().ConfigureAwait(false);
    }

    /// <summary>The next reply or push.</summary>
    public async Task<RespValue> ReadAsync()
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        while (true)
        {
            var read = await _reader.ReadAsync(timeout.Token).ConfigureAwait(false);
            var status = RespReplyReader.TryRead(read.Buffer, RespLimits.Default, out var value, out var consumed, out var error);
            if (status == RespParseStatus.Complete)
            {
                _reader.AdvanceTo(consumed);
                return value!;
            }

            if (status == RespParseStatus.Error || read.IsCompleted)
            {
                throw new HarnessException(error ?? "the server closed the connection");
            }

            _reader.AdvanceTo(read.Buffer.Start, read.Buffer.End);
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _reader.CompleteAsync().ConfigureAwait(false);
        await _stream.DisposeAsync().ConfigureAwait(false);
        _socket.Dispose();
    }
}
