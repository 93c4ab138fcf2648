using System.Buffers;

namespace Cubby.Resp;

/// <summary>Reads CRLF-terminated lines without allocating and without scanning past a length bound.</summary>
internal static class RespLineReader
{
    /// <summary>The most bytes a short line (a length or count header) may hold before its CRLF.</summary>
    public const int MaxShortLineLength = RespNumberParser.MaxInt64Length;

    /// <summary>
    /// Reads a length or count line such as the <c>123\r\n</c> of <c>$123\r\n</c> and parses it with Redis's rules
    /// (<see cref="RespNumberParser.TryParseStrict"/>). Looks at no more than the longest valid line and its CRLF.
    /// </summary>
    public static LineStatus TryReadNumberLine(ref SequenceReader<byte> reader, out long value)
    {
        const int window = MaxShortLineLength + 2;
        value = 0;
        ReadOnlySpan<byte> span = reader.UnreadSpan;
        if (span.Length > window)
        {
            span = span[..window];
        }

        int cr = span.IndexOf((byte)'\r');
        if (cr < 0 || cr + 1 >= span.Length)
        {
            // The line may continue in later segments; gather what there is into one span.
            Span<byte> copy = stackalloc byte[window];
            copy = copy[..(int)Math.Min(reader.Remaining, window)];
            reader.TryCopyTo(copy);
            return Parse(ref reader, copy, out value);
        }

        return Parse(ref reader, span, out value);
    }

    private static LineStatus Parse(ref SequenceReader<byte> reader, scoped ReadOnlySpan<byte> span, out long value)
    {
        value = 0;
        int cr = span.IndexOf((byte)'\r');
        if (cr < 0)
        {
            return span.Length > MaxShortLineLength ? LineStatus.TooLong : LineStatus.Incomplete;
        }

        if (cr > MaxShortLineLength)
        {
            return LineStatus.TooLong;
        }

        if (cr + 1 >= span.Length)
        {
            return LineStatus.Incomplete;
        }

        if (span[cr + 1] != (byte)'\n')
        {
            return LineStatus.MissingLineFeed;
        }

        if (!RespNumberParser.TryParseStrict(span[..cr], out value))
        {
            return LineStatus.InvalidNumber;
        }

        reader.Advance(cr + 2);
        return LineStatus.Complete;
    }

    /// <summary>Reads a line of up to <paramref name="maxLength"/> bytes before its CRLF, such as a simple string.</summary>
    public static LineStatus TryReadLine(ref SequenceReader<byte> reader, long maxLength, out ReadOnlySequence<byte> line)
    {
        line = default;
        ReadOnlySequence<byte> unread = reader.UnreadSequence;
        long searchLength = Math.Min(unread.Length, maxLength + 1);
        SequencePosition? cr = unread.Slice(0, searchLength).PositionOf((byte)'\r');
        if (cr is null)
        {
            return unread.Length > maxLength ? LineStatus.TooLong : LineStatus.Incomplete;
        }

        ReadOnlySequence<byte> content = unread.Slice(0, cr.Value);
        long length = content.Length;
        if (!reader.TryPeek(length + 1, out byte lf))
        {
            return LineStatus.Incomplete;
        }

        if (lf != (byte)'\n')
        {
            return LineStatus.MissingLineFeed;
        }

        line = content;
        reader.Advance(length + 2);
        return LineStatus.Complete;
    }
}
