using System.Buffers;
using System.Globalization;

namespace Cubby.Resp;

/// <summary>
/// Parses client commands the way Redis does: a RESP array of bulk strings (<c>*2\r\n$3\r\nGET\r\n$1\r\nk\r\n</c>)
/// or, for a line that does not start with <c>*</c>, an inline command (<c>GET k\r\n</c>).
/// </summary>
public static class RespRequestParser
{
    private const string InvalidMultibulkLength = "Protocol error: invalid multibulk length";
    private const string TooBigMultibulkCount = "Protocol error: too big mbulk count string";
    private const string InvalidBulkLength = "Protocol error: invalid bulk length";
    private const string TooBigBulkCount = "Protocol error: too big bulk count string";
    private const string MissingBulkTerminator = "Protocol error: expected CRLF after bulk string";
    private const string TooBigInlineRequest = "Protocol error: too big inline request";
    private const string UnbalancedQuotes = "Protocol error: unbalanced quotes in request";

    /// <summary>Parses the command at the start of <paramref name="buffer"/> into <paramref name="request"/>.</summary>
    /// <remarks>
    /// Commands that carry nothing to run (<c>*0\r\n</c>, a negative count such as <c>*-10\r\n</c>, and inline lines that are empty or only
    /// whitespace) are consumed and skipped, and parsing continues with the next command in the buffer. So
    /// <paramref name="consumed"/> is always the start of the first command not yet returned: when only skipped
    /// commands precede an incomplete one, the result is <see cref="RespParseStatus.Incomplete"/> with
    /// <paramref name="consumed"/> after the skipped bytes, which the caller may release.
    /// Parsing is stateless: after <see cref="RespParseStatus.Incomplete"/>, call again with the same start and more bytes.
    /// A RESP array command that arrived whole in the buffer's first segment is read in place: the request borrows the
    /// segment (<see cref="RespRequest.IsBorrowed"/>) and is valid only as long as the buffer is. Otherwise it is
    /// validated and measured before anything is copied, so re-reading one that is still arriving costs only its
    /// headers, and its storage is reserved only for bytes that have arrived.
    /// </remarks>
    /// <param name="buffer">Received bytes, from the first byte not yet consumed.</param>
    /// <param name="request">Receives the command on <see cref="RespParseStatus.Complete"/>; emptied otherwise.</param>
    /// <param name="limits">Sizes beyond which the command is rejected before any memory is allocated for it.</param>
    /// <param name="consumed">
    /// <see cref="RespParseStatus.Complete"/>: just after the command. <see cref="RespParseStatus.Incomplete"/>: the start
    /// of the incomplete command (the start of the buffer unless skipped commands preceded it).
    /// <see cref="RespParseStatus.Error"/>: the start of the offending command.
    /// </param>
    /// <param name="error">
    /// On <see cref="RespParseStatus.Error"/>, what is wrong, such as
    /// <c>Protocol error: invalid bulk length: 600000000 exceeds the limit of 16777216 bytes</c>; the server replies
    /// <c>-ERR</c> with it and closes the connection. Null otherwise.
    /// </param>
    public static RespParseStatus TryParse(in ReadOnlySequence<byte> buffer, RespRequest request, RespLimits limits, out SequencePosition consumed, out string? error)
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(limits);

        request.Reset();
        if (InPlaceArrayParser.TryParse(buffer.First, request, limits, out var length))
        {
            consumed = buffer.GetPosition(length);
            error = null;
            return RespParseStatus.Complete;
        }

        var reader = new SequenceReader<byte>(buffer);
        while (true)
        {
            request.Reset();
            consumed = reader.Position;
            if (!reader.TryPeek(out byte first))
            {
                error = null;
                return RespParseStatus.Incomplete;
            }

            RespParseStatus status = first == (byte)'*'
                ? ParseArray(ref reader, request, limits, out error)
                : ParseInline(ref reader, request, limits, out error);

            if (status != RespParseStatus.Complete)
            {
                request.Reset();
                return status;
            }

            if (request.Count > 0)
            {
                consumed = reader.Position;
                return status;
            }
        }
    }

    private static RespParseStatus ParseArray(ref SequenceReader<byte> reader, RespRequest request, RespLimits limits, out string? error)
    {
        SequenceReader<byte> commandStart = reader;
        reader.Advance(1);
        LineStatus line = RespLineReader.TryReadNumberLine(ref reader, out long count);
        if (line == LineStatus.Incomplete)
        {
            error = null;
            return RespParseStatus.Incomplete;
        }

        if (line == LineStatus.TooLong)
        {
            error = TooBigMultibulkCount;
            return RespParseStatus.Error;
        }

        if (line != LineStatus.Complete)
        {
            error = InvalidMultibulkLength;
            return RespParseStatus.Error;
        }

        if (count <= 0)
        {
            // *0, and any negative count as Redis takes it: nothing to run; the caller skips it.
            error = null;
            return RespParseStatus.Complete;
        }

        if (count > limits.MaxArrayLength)
        {
            error = string.Create(CultureInfo.InvariantCulture, $"Protocol error: invalid multibulk length: {count} exceeds the limit of {limits.MaxArrayLength} arguments");
            return RespParseStatus.Error;
        }

        // First pass: validate the whole command and measure it without storing anything, so storage is only
        // reserved for bytes that have actually arrived, and an incomplete command costs no copying.
        long dataBytes = 0;
        for (long i = 0; i < count; i++)
        {
            RespParseStatus status = ReadBulkHeader(ref reader, limits, out int length, out error);
            if (status != RespParseStatus.Complete)
            {
                return status;
            }

            dataBytes += length;
            if (dataBytes > limits.MaxRequestBytes)
            {
                error = string.Create(CultureInfo.InvariantCulture, $"Protocol error: command arguments exceed the limit of {limits.MaxRequestBytes} bytes");
                return RespParseStatus.Error;
            }

            if (reader.Remaining < length + 2L)
            {
                error = null;
                return RespParseStatus.Incomplete;
            }

            reader.Advance(length);
            if (!reader.IsNext("\r\n"u8, advancePast: true))
            {
                error = MissingBulkTerminator;
                return RespParseStatus.Error;
            }
        }

        CopyArguments(commandStart, (int)count, (int)dataBytes, request, limits);
        error = null;
        return RespParseStatus.Complete;
    }

    // Second pass over a command the first pass validated: copy each argument into the request's buffer.
    private static void CopyArguments(SequenceReader<byte> reader, int count, int dataBytes, RespRequest request, RespLimits limits)
    {
        request.Prepare(count, dataBytes);
        reader.Advance(1);
        RespLineReader.TryReadNumberLine(ref reader, out _);
        for (int i = 0; i < count; i++)
        {
            ReadBulkHeader(ref reader, limits, out int length, out _);
            reader.TryCopyTo(request.AppendArgument(length));
            reader.Advance(length + 2L);
        }
    }

    private static RespParseStatus ReadBulkHeader(ref SequenceReader<byte> reader, RespLimits limits, out int length, out string? error)
    {
        length = 0;
        if (!reader.TryPeek(out byte marker))
        {
            error = null;
            return RespParseStatus.Incomplete;
        }

        if (marker != (byte)'$')
        {
            error = "Protocol error: expected '$', got '" + ProtocolText.Printable(marker) + "'";
            return RespParseStatus.Error;
        }

        reader.Advance(1);
        LineStatus line = RespLineReader.TryReadNumberLine(ref reader, out long declared);
        if (line == LineStatus.Incomplete)
        {
            error = null;
            return RespParseStatus.Incomplete;
        }

        if (line == LineStatus.TooLong)
        {
            error = TooBigBulkCount;
            return RespParseStatus.Error;
        }

        if (line != LineStatus.Complete || declared < 0)
        {
            error = InvalidBulkLength;
            return RespParseStatus.Error;
        }

        if (declared > limits.MaxBulkBytes)
        {
            error = string.Create(CultureInfo.InvariantCulture, $"Protocol error: invalid bulk length: {declared} exceeds the limit of {limits.MaxBulkBytes} bytes");
            return RespParseStatus.Error;
        }

        length = (int)declared;
        error = null;
        return RespParseStatus.Complete;
    }

    private static RespParseStatus ParseInline(ref SequenceReader<byte> reader, RespRequest request, RespLimits limits, out string? error)
    {
        ReadOnlySequence<byte> unread = reader.UnreadSequence;

        // A line may hold MaxInlineBytes before "\r\n"; looking no further bounds the work on a line that never ends.
        long searchLength = Math.Min(unread.Length, limits.MaxInlineBytes + 2L);
        SequencePosition? newline = unread.Slice(0, searchLength).PositionOf((byte)'\n');
        if (newline is null)
        {
            // Without a newline the line is at least searchLength bytes long, less a final CR that may start "\r\n".
            bool tooLong = searchLength > limits.MaxInlineBytes + 1L
                || (searchLength == limits.MaxInlineBytes + 1L && SequenceBytes.At(unread, searchLength - 1) != (byte)'\r');
            error = tooLong ? TooBigInlineRequest : null;
            return tooLong ? RespParseStatus.Error : RespParseStatus.Incomplete;
        }

        ReadOnlySequence<byte> line = unread.Slice(0, newline.Value);
        long lineAndNewline = line.Length + 1;
        if (!line.IsEmpty && SequenceBytes.At(line, line.Length - 1) == (byte)'\r')
        {
            line = line.Slice(0, line.Length - 1);
        }

        if (line.Length > limits.MaxInlineBytes)
        {
            error = TooBigInlineRequest;
            return RespParseStatus.Error;
        }

        if (!TryTokenize(line, request))
        {
            error = UnbalancedQuotes;
            return RespParseStatus.Error;
        }

        reader.Advance(lineAndNewline);
        error = null;
        return RespParseStatus.Complete;
    }

    private static bool TryTokenize(in ReadOnlySequence<byte> line, RespRequest request)
    {
        if (line.IsSingleSegment)
        {
            return InlineCommandTokenizer.TryTokenize(line.FirstSpan, request);
        }

        int length = (int)line.Length;
        byte[] contiguous = ArrayPool<byte>.Shared.Rent(length);
        try
        {
            line.CopyTo(contiguous);
            return InlineCommandTokenizer.TryTokenize(contiguous.AsSpan(0, length), request);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(contiguous);
        }
    }
}
