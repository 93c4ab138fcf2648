using System.Runtime.InteropServices;

namespace Cubby.Resp;

/// <summary>
/// The common case of <see cref="RespRequestParser"/>: a well-formed RESP array command that arrived whole in one
/// received block is parsed in one pass, and its arguments are read where they lie instead of being copied. Anything
/// else (a command split across blocks or still arriving, a malformed one, one over a limit) is left to the general
/// parser, which reads well-formed commands the same way and names what is wrong with the rest.
/// </summary>
internal static class InPlaceArrayParser
{
    // Ten digits hold every length a limit allows; a longer number is for the general parser to reject.
    private const int MaxLengthDigits = 10;

    /// <summary>
    /// Parses the command at the start of <paramref name="block"/>, whose <paramref name="length"/> bytes
    /// <paramref name="request"/> then borrows; false leaves the request empty.
    /// </summary>
    public static bool TryParse(ReadOnlyMemory<byte> block, RespRequest request, RespLimits limits, out int length)
    {
        length = 0;
        if (!MemoryMarshal.TryGetArray(block, out var segment))
        {
            return false;
        }

        var span = segment.AsSpan();
        var position = 1;
        if (span.IsEmpty || span[0] != (byte)'*' || !TryReadLength(span, ref position, limits.MaxArrayLength, out var count) || count == 0)
        {
            return false;
        }

        request.BeginBorrowed(segment.Array!, count);
        long dataBytes = 0;
        for (var i = 0; i < count; i++)
        {
            if (position >= span.Length || span[position] != (byte)'$')
            {
                return Abandon(request);
            }

            position++;
            if (!TryReadLength(span, ref position, limits.MaxBulkBytes, out var argumentLength))
            {
                return Abandon(request);
            }

            dataBytes += argumentLength;
            if (dataBytes > limits.MaxRequestBytes || span.Length - position < argumentLength + 2L
                || span[position + argumentLength] != (byte)'\r' || span[position + argumentLength + 1] != (byte)'\n')
            {
                return Abandon(request);
            }

            request.AddBorrowedArgument(segment.Offset + position, argumentLength);
            position += argumentLength + 2;
        }

        length = position;
        return true;
    }

    private static bool Abandon(RespRequest request)
    {
        request.Reset();
        return false;
    }

    /// <summary>
    /// Reads a length written as Redis writes one, digits without a sign or a leading zero and then CRLF, of at most
    /// <paramref name="limit"/>. Anything else answers false, for the general parser to judge.
    /// </summary>
    private static bool TryReadLength(ReadOnlySpan<byte> span, ref int position, long limit, out int value)
    {
        value = 0;
        var start = position;
        long number = 0;
        while (position < span.Length && (uint)(span[position] - '0') <= 9)
        {
            if (position - start == MaxLengthDigits || (number == 0 && position > start))
            {
                return false;
            }

            number = (number * 10) + (span[position] - '0');
            position++;
        }

        if (position == start || number > limit || span.Length - position < 2 || span[position] != (byte)'\r' || span[position + 1] != (byte)'\n')
        {
            return false;
        }

        position += 2;
        value = (int)number;
        return true;
    }
}
