using System.Buffers;
using System.Globalization;

namespace Cubby.Resp;

/// <summary>Reads one RESP item (a scalar, or an aggregate's header) and checks it against the protocol and the limits.</summary>
internal static class RespItemReader
{
    // Longer double texts are rejected rather than copied anywhere.
    private const int MaxDoubleLength = 128;

    /// <summary>Reads the item at the reader's position; on success the reader is just after it.</summary>
    /// <param name="reader">Positioned at the item's type byte.</param>
    /// <param name="limits">Sizes beyond which the item is rejected.</param>
    /// <param name="item">The item, on <see cref="RespParseStatus.Complete"/>.</param>
    /// <param name="error">What is wrong, on <see cref="RespParseStatus.Error"/>.</param>
    public static RespParseStatus TryRead(ref SequenceReader<byte> reader, RespLimits limits, out RespItem item, out string? error)
    {
        item = default;
        error = null;
        if (!reader.TryRead(out byte type))
        {
            return RespParseStatus.Incomplete;
        }

        switch ((RespType)type)
        {
            case RespType.SimpleString or RespType.Error:
                return ReadText(ref reader, (RespType)type, limits.MaxBulkBytes, out item, out error);
            case RespType.BigNumber:
            {
                RespParseStatus status = ReadText(ref reader, RespType.BigNumber, limits.MaxBulkBytes, out item, out error);
                return status == RespParseStatus.Complete && !IsBigNumber(item.Payload)
                    ? Fail("Protocol error: invalid big number", out item, out error)
                    : status;
            }

            case RespType.Integer:
                return ReadInteger(ref reader, out item, out error);
            case RespType.Double:
                return ReadDouble(ref reader, out item, out error);
            case RespType.Boolean:
                return ReadBoolean(ref reader, out item, out error);
            case RespType.Null:
                return ReadNull(ref reader, out item, out error);
            case RespType.BulkString or RespType.BulkError or RespType.VerbatimString:
                return ReadBlob(ref reader, (RespType)type, limits, out item, out error);
            case RespType.Array or RespType.Map or RespType.Set or RespType.Attribute or RespType.Push:
                return ReadAggregateHeader(ref reader, (RespType)type, limits, out item, out error);
            default:
                return Fail("Protocol error: unknown reply type '" + ProtocolText.Printable(type) + "'", out item, out error);
        }
    }

    private static RespParseStatus ReadText(ref SequenceReader<byte> reader, RespType type, long maxLength, out RespItem item, out string? error)
    {
        item = default;
        error = null;
        switch (RespLineReader.TryReadLine(ref reader, maxLength, out ReadOnlySequence<byte> line))
        {
            case LineStatus.Incomplete:
                return RespParseStatus.Incomplete;
            case LineStatus.TooLong:
                return Fail(string.Create(CultureInfo.InvariantCulture, $"Protocol error: '{(char)type}' line longer than {maxLength} bytes"), out item, out error);
            case LineStatus.MissingLineFeed:
                return Fail(string.Create(CultureInfo.InvariantCulture, $"Protocol error: '{(char)type}' line not terminated by CRLF"), out item, out error);
        }

        item = new RespItem { Type = type, Payload = line };
        return RespParseStatus.Complete;
    }

    private static RespParseStatus ReadInteger(ref SequenceReader<byte> reader, out RespItem item, out string? error)
    {
        RespParseStatus status = ReadText(ref reader, RespType.Integer, RespNumberParser.MaxInt64Length, out item, out error);
        if (status != RespParseStatus.Complete)
        {
            return status == RespParseStatus.Error ? Fail("Protocol error: invalid integer", out item, out error) : status;
        }

        Span<byte> buffer = stackalloc byte[RespNumberParser.MaxInt64Length];
        if (!RespNumberParser.TryParseLenient(Contiguous(item.Payload, buffer), out long value))
        {
            return Fail("Protocol error: invalid integer", out item, out error);
        }

        item = item with { Integer = value };
        return RespParseStatus.Complete;
    }

    private static RespParseStatus ReadDouble(ref SequenceReader<byte> reader, out RespItem item, out string? error)
    {
        RespParseStatus status = ReadText(ref reader, RespType.Double, MaxDoubleLength, out item, out error);
        if (status != RespParseStatus.Complete)
        {
            return status == RespParseStatus.Error ? Fail("Protocol error: invalid double", out item, out error) : status;
        }

        Span<byte> buffer = stackalloc byte[MaxDoubleLength];
        if (!TryParseDouble(Contiguous(item.Payload, buffer), out double value))
        {
            return Fail("Protocol error: invalid double", out item, out error);
        }

        item = item with { Double = value };
        return RespParseStatus.Complete;
    }

    private static RespParseStatus ReadBoolean(ref SequenceReader<byte> reader, out RespItem item, out string? error)
    {
        RespParseStatus status = ReadText(ref reader, RespType.Boolean, 1, out item, out error);
        if (status != RespParseStatus.Complete)
        {
            return status == RespParseStatus.Error ? Fail("Protocol error: invalid boolean", out item, out error) : status;
        }

        byte value = item.Payload.IsEmpty ? (byte)0 : SequenceBytes.At(item.Payload, 0);
        if (value is not ((byte)'t' or (byte)'f'))
        {
            return Fail("Protocol error: invalid boolean", out item, out error);
        }

        item = item with { Boolean = value == (byte)'t' };
        return RespParseStatus.Complete;
    }

    private static RespParseStatus ReadNull(ref SequenceReader<byte> reader, out RespItem item, out string? error)
    {
        RespParseStatus status = ReadText(ref reader, RespType.Null, 0, out item, out error);
        if (status == RespParseStatus.Error)
        {
            return Fail("Protocol error: invalid null", out item, out error);
        }

        item = item with { IsNull = true };
        return status;
    }

    private static RespParseStatus ReadBlob(ref SequenceReader<byte> reader, RespType type, RespLimits limits, out RespItem item, out string? error)
    {
        RespParseStatus status = ReadLength(ref reader, type, out long length, out item, out error);
        if (status != RespParseStatus.Complete)
        {
            return status;
        }

        if (length == -1 && type == RespType.BulkString)
        {
            item = new RespItem { Type = type, IsNull = true };
            return RespParseStatus.Complete;
        }

        if (length < 0)
        {
            return Fail(string.Create(CultureInfo.InvariantCulture, $"Protocol error: invalid '{(char)type}' length"), out item, out error);
        }

        if (length > limits.MaxBulkBytes)
        {
            return Fail(string.Create(CultureInfo.InvariantCulture, $"Protocol error: bulk length {length} exceeds the limit of {limits.MaxBulkBytes} bytes"), out item, out error);
        }

        if (reader.Remaining < length + 2)
        {
            return RespParseStatus.Incomplete;
        }

        ReadOnlySequence<byte> payload = reader.UnreadSequence.Slice(0, length);
        reader.Advance(length);
        if (!reader.IsNext("\r\n"u8, advancePast: true))
        {
            return Fail("Protocol error: expected CRLF after bulk string", out item, out error);
        }

        if (type == RespType.VerbatimString && (length < 4 || SequenceBytes.At(payload, 3) != (byte)':'))
        {
            return Fail("Protocol error: verbatim string without a 'fmt:' prefix", out item, out error);
        }

        item = new RespItem { Type = type, Payload = payload };
        return RespParseStatus.Complete;
    }

    private static RespParseStatus ReadAggregateHeader(ref SequenceReader<byte> reader, RespType type, RespLimits limits, out RespItem item, out string? error)
    {
        RespParseStatus status = ReadLength(ref reader, type, out long count, out item, out error);
        if (status != RespParseStatus.Complete)
        {
            return status;
        }

        if (count == -1 && type == RespType.Array)
        {
            item = new RespItem { Type = type, IsNull = true };
            return RespParseStatus.Complete;
        }

        long elements = type is RespType.Map or RespType.Attribute ? 2 * count : count;
        if (count < 0)
        {
            return Fail(string.Create(CultureInfo.InvariantCulture, $"Protocol error: invalid '{(char)type}' length"), out item, out error);
        }

        if (count > limits.MaxArrayLength || elements > limits.MaxArrayLength)
        {
            return Fail(string.Create(CultureInfo.InvariantCulture, $"Protocol error: aggregate of {elements} elements exceeds the limit of {limits.MaxArrayLength}"), out item, out error);
        }

        item = new RespItem { Type = type, ElementCount = elements };
        return RespParseStatus.Complete;
    }

    private static RespParseStatus ReadLength(ref SequenceReader<byte> reader, RespType type, out long length, out RespItem item, out string? error)
    {
        item = default;
        error = null;
        length = 0;
        switch (RespLineReader.TryReadNumberLine(ref reader, out length))
        {
            case LineStatus.Incomplete:
                return RespParseStatus.Incomplete;
            case LineStatus.Complete:
                return RespParseStatus.Complete;
            default:
                return Fail(string.Create(CultureInfo.InvariantCulture, $"Protocol error: invalid '{(char)type}' length"), out item, out error);
        }
    }

    private static bool TryParseDouble(ReadOnlySpan<byte> text, out double value)
    {
        ReadOnlySpan<byte> unsigned = text.IsEmpty || text[0] is not ((byte)'-' or (byte)'+') ? text : text[1..];
        if (System.Text.Ascii.EqualsIgnoreCase(unsigned, "inf"u8))
        {
            value = text[0] == (byte)'-' ? double.NegativeInfinity : double.PositiveInfinity;
            return true;
        }

        if (System.Text.Ascii.EqualsIgnoreCase(unsigned, "nan"u8))
        {
            value = double.NaN;
            return true;
        }

        const NumberStyles style = NumberStyles.AllowLeadingSign | NumberStyles.AllowDecimalPoint | NumberStyles.AllowExponent;
        return double.TryParse(text, style, CultureInfo.InvariantCulture, out value);
    }

    private static bool IsBigNumber(in ReadOnlySequence<byte> payload)
    {
        if (payload.IsSingleSegment)
        {
            return RespWriter.IsBigNumber(payload.FirstSpan);
        }

        // Multi-segment big numbers are rare; checking byte by byte keeps this allocation-free.
        var reader = new SequenceReader<byte>(payload);
        reader.TryPeek(out byte first);
        if (first is (byte)'-' or (byte)'+')
        {
            reader.Advance(1);
        }

        if (reader.End)
        {
            return false;
        }

        while (reader.TryRead(out byte b))
        {
            if (b is < (byte)'0' or > (byte)'9')
            {
                return false;
            }
        }

        return true;
    }

    private static ReadOnlySpan<byte> Contiguous(in ReadOnlySequence<byte> payload, Span<byte> buffer)
    {
        if (payload.IsSingleSegment)
        {
            return payload.FirstSpan;
        }

        payload.CopyTo(buffer);
        return buffer[..(int)payload.Length];
    }

    private static RespParseStatus Fail(string message, out RespItem item, out string? error)
    {
        item = default;
        error = message;
        return RespParseStatus.Error;
    }
}
