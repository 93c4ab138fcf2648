using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using System.Text;
using Cubby.Resp;

namespace Cubby.Tests.Infrastructure;

/// <summary>A plain RESP client over a real socket, for driving a silo the way any Redis client does.</summary>
internal sealed class RespTestClient : IAsyncDisposable
{
    private static readonly TimeSpan ReplyTimeout = TimeSpan.FromSeconds(30);
    private readonly Socket _socket;
    private readonly PipeReader _reader;
    private readonly NetworkStream _stream;

    private RespTestClient(Socket socket)
    {
        _socket = socket;
        _stream = new NetworkStream(socket, ownsSocket: true);
        _reader = PipeReader.Create(_stream);
    }

    public static async Task<RespTestClient> ConnectAsync(IPEndPoint endPoint)
    {
        var socket = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(endPoint);
        return new RespTestClient(socket);
    }

    /// <summary>Sends one command and reads its reply.</summary>
    public async Task<RespValue> CallAsync(params object[] arguments)
    {
        await SendAsync(arguments);
        return await ReadAsync();
    }

    public async Task SendAsync(params object[] arguments) => await SendRawAsync(Encode(arguments));

    public async Task SendRawAsync(byte[] bytes) => await _stream.WriteAsync(bytes);

    public static byte[] Encode(params object[] arguments)
    {
        var buffer = new ArrayBufferWriter<byte>();
        var writer = new RespWriter(buffer);
        writer.WriteArrayHeader(arguments.Length);
        foreach (var argument in arguments)
        {
            switch (argument)
            {
                case byte[] bytes:
                    writer.WriteBulkString(bytes);
                    break;
                default:
                    writer.WriteBulkString(Convert.ToString(argument, System.Globalization.CultureInfo.InvariantCulture)!);
                    break;
            }
        }

        return buffer.WrittenSpan.ToArray();
    }

    /// <summary>Reads the next reply; fails the test if none arrives in time.</summary>
    public async Task<RespValue> ReadAsync()
    {
        using var timeout = new CancellationTokenSource(ReplyTimeout);
        while (true)
        {
            var read = await _reader.ReadAsync(timeout.Token);
            var status = RespReplyReader.TryRead(read.Buffer, RespLimits.Default, out var value, out var consumed, out var error);
            if (status == RespParseStatus.Complete)
            {
                _reader.AdvanceTo(consumed);
                return value!;
            }

            if (status == RespParseStatus.Error)
            {
                throw new InvalidDataException(error);
            }

            _reader.AdvanceTo(read.Buffer.Start, read.Buffer.End);
            if (read.IsCompleted)
            {
                throw new EndOfStreamException("The silo closed the connection.");
            }
        }
    }

    /// <summary>Sends one command and reads its reply's bytes exactly as the silo wrote them.</summary>
    public async Task<byte[]> CallRawAsync(params object[] arguments)
    {
        await SendAsync(arguments);
        using var timeout = new CancellationTokenSource(ReplyTimeout);
        while (true)
        {
            var read = await _reader.ReadAsync(timeout.Token);
            var status = RespReplyReader.TrySkip(read.Buffer, RespLimits.Default, out var end, out var error);
            if (status == RespParseStatus.Complete)
            {
                var bytes = read.Buffer.Slice(0, end).ToArray();
                _reader.AdvanceTo(end);
                return bytes;
            }

            if (status == RespParseStatus.Error)
            {
                throw new InvalidDataException(error);
            }

            _reader.AdvanceTo(read.Buffer.Start, read.Buffer.End);
            if (read.IsCompleted)
            {
                throw new EndOfStreamException("The silo closed the connection.");
            }
        }
    }

    /// <summary>True when the silo has closed the connection (a read returns end of stream).</summary>
    public async Task<bool> IsClosedByServerAsync()
    {
        using var timeout = new CancellationTokenSource(ReplyTimeout);
        try
        {
            while (true)
            {
                var read = await _reader.ReadAsync(timeout.Token);
                _reader.AdvanceTo(read.Buffer.End);
                if (read.IsCompleted)
                {
                    return true;
                }
            }
        }
        catch (IOException)
        {
            return true;
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _reader.CompleteAsync();
        await _stream.DisposeAsync();
        _socket.Dispose();
    }
}

/// <summary>Assertions on replies.</summary>
internal static class RespAssert
{
    public static void Ok(RespValue reply) => SimpleString("OK", reply);

    public static void SimpleString(string expected, RespValue reply)
    {
        Assert.Equal(RespType.SimpleString, reply.Type);
        Assert.Equal(expected, reply.AsString());
    }

    public static void Bulk(string expected, RespValue reply)
    {
        Assert.False(reply.IsNull, $"expected \"{expected}\" but got null");
        Assert.True(reply.Type is RespType.BulkString or RespType.VerbatimString, $"expected a bulk string but got {reply}");
        Assert.Equal(expected, reply.AsString());
    }

    public static void Null(RespValue reply) => Assert.True(reply.IsNull, $"expected null but got {reply}");

    public static void Integer(long expected, RespValue reply)
    {
        Assert.Equal(RespType.Integer, reply.Type);
        Assert.Equal(expected, reply.Integer);
    }

    public static void Error(string expectedPrefix, RespValue reply)
    {
        Assert.Equal(RespType.Error, reply.Type);
        Assert.StartsWith(expectedPrefix, reply.AsString(), StringComparison.Ordinal);
    }

    public static string[] Strings(RespValue reply) => reply.Items.Select(item => item.AsString() ?? "(nil)").ToArray();

    public static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);
}
