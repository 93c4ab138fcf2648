using System.Buffers;
using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Silo.Routing;

/// <summary>Reads the few reply shapes a split multi-key command's shares answer with, from their encoded bytes.</summary>
internal static class RawReplies
{
    private static readonly RespLimits Unlimited = new() { MaxBulkBytes = Array.MaxLength, MaxArrayLength = Array.MaxLength, MaxRequestBytes = Array.MaxLength };

    public static bool IsError(ReadOnlySpan<byte> reply) => !reply.IsEmpty && reply[0] is (byte)'-' or (byte)'!';

    /// <summary>An integer reply's value (<c>:n</c>).</summary>
    public static bool TryReadInteger(ReadOnlySpan<byte> reply, out long value)
    {
        value = 0;
        return reply.Length > 3 && reply[0] == (byte)':' && RedisNumber.TryParseInt64(reply[1..^2], out value);
    }

    /// <summary>The encoded elements of an array reply, in order.</summary>
    public static bool TrySplitArray(ReadOnlyMemory<byte> reply, List<ReadOnlyMemory<byte>> elements)
    {
        var span = reply.Span;
        var lineEnd = span.IndexOf("\r\n"u8);
        if (span.IsEmpty || span[0] != (byte)'*' || lineEnd < 2 || !RedisNumber.TryParseInt64(span[1..lineEnd], out var count) || count < 0)
        {
            return false;
        }

        var rest = reply[(lineEnd + 2)..];
        for (var i = 0; i < count; i++)
        {
            if (RespReplyReader.TrySkip(new ReadOnlySequence<byte>(rest), Unlimited, out var end, out _) != RespParseStatus.Complete)
            {
                return false;
            }

            var length = (int)new ReadOnlySequence<byte>(rest).Slice(0, end).Length;
            elements.Add(rest[..length]);
            rest = rest[length..];
        }

        return true;
    }

    /// <summary>Adds the payloads of an array-of-bulk-strings reply to <paramref name="keys"/>.</summary>
    public static void AddBulkStrings(ReadOnlySpan<byte> reply, List<byte[]> keys)
    {
        var elements = new List<ReadOnlyMemory<byte>>();
        if (!TrySplitArray(reply.ToArray(), elements))
        {
            return;
        }

        foreach (var element in elements)
        {
            var span = element.Span;
            var lineEnd = span.IndexOf("\r\n"u8);
            if (span[0] == (byte)'$' && lineEnd > 0)
            {
                keys.Add(span[(lineEnd + 2)..^2].ToArray());
            }
        }
    }
}
