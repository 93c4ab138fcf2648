using System.Buffers.Text;
using System.Text;

namespace Cubby.Load.Resp;

/// <summary>Reads one RESP2/RESP3 reply from the start of a buffer, or says it has not fully arrived.</summary>
internal static class RespReplyReader
{
    /// <returns>The bytes the reply takes, or 0 when it is incomplete.</returns>
    public static int TryRead(ReadOnlySpan<byte> buffer, out RespReply reply)
    {
        reply = default;
        var lineEnd = buffer.IndexOf("\r\n"u8);
        if (lineEnd < 1)
        {
            return 0;
        }

        var line = buffer[1..lineEnd];
        var headerLength = lineEnd + 2;
        switch (buffer[0])
        {
            case (byte)'+':
                reply = new RespReply(RespReplyKind.Simple, Text: Encoding.UTF8.GetString(line));
                return headerLength;
            case (byte)'-':
                reply = new RespReply(RespReplyKind.Error, Text: Encoding.UTF8.GetString(line));
                return headerLength;
            case (byte)':':
                reply = new RespReply(RespReplyKind.Integer, Number(line));
                return headerLength;
            case (byte)'_':
                reply = RespReply.Null;
                return headerLength;
            case (byte)'$' or (byte)'=':
                var length = Number(line);
                if (length < 0)
                {
                    reply = RespReply.Null;
                    return headerLength;
                }

                var total = headerLength + (int)length + 2;
                if (buffer.Length < total)
                {
                    return 0;
                }

                reply = new RespReply(RespReplyKind.Bulk, Bulk: buffer.Slice(headerLength, (int)length).ToArray());
                return total;
            case (byte)'*' or (byte)'%' or (byte)'~' or (byte)'>':
                var count = Number(line);
                var elements = count < 0 ? 0 : buffer[0] == (byte)'%' ? count * 2 : count;
                var consumed = headerLength;
                for (var i = 0; i < elements; i++)
                {
                    var element = TryRead(buffer[consumed..], out _);
                    if (element == 0)
                    {
                        return 0;
                    }

                    consumed += element;
                }

                reply = count < 0 ? RespReply.Null : new RespReply(RespReplyKind.Array, count);
                return consumed;
            default:
                throw new InvalidDataException($"Unexpected RESP reply type '{(char)buffer[0]}'.");
        }
    }

    private static long Number(ReadOnlySpan<byte> text) =>
        Utf8Parser.TryParse(text, out long value, out var used) && used == text.Length
            ? value
            : throw new InvalidDataException($"Bad RESP number '{Encoding.ASCII.GetString(text)}'.");
}
