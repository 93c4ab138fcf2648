using System.Buffers;
using System.Buffers.Text;
using System.Globalization;
using System.Text;
using System.Text.Unicode;

namespace Cubby.Resp;

/// <summary>
/// Writes RESP replies (and commands, which are arrays of bulk strings) to an <see cref="IBufferWriter{T}"/>.
/// A connection reuses one writer; writing allocates nothing. Types that RESP2 lacks are written the way Redis
/// writes them to RESP2 clients.
/// </summary>
public sealed class RespWriter
{
    // Values up to this size are written with a single GetSpan/Advance; larger ones are copied in chunks so the
    // output never has to provide one span as large as the value.
    private const int SingleSpanLimit = 4096;

    // A type byte, a 64-bit integer and CRLF.
    private const int MaxHeaderLength = 1 + RespNumberParser.MaxInt64Length + 2;

    // Room for the shortest round-trip text of any double.
    private const int MaxDoubleLength = 32;

    /// <summary>Creates a writer.</summary>
    /// <param name="output">Where the bytes go.</param>
    /// <param name="version">The protocol the peer speaks.</param>
    public RespWriter(IBufferWriter<byte> output, RespVersion version = RespVersion.Resp2)
    {
        Output = output;
        Version = version;
    }

    /// <summary>Where the bytes go; may be swapped between writes, for example per flush.</summary>
    public IBufferWriter<byte> Output
    {
        get;
        set
        {
            ArgumentNullException.ThrowIfNull(value);
            field = value;
        }
    }

    /// <summary>The protocol the peer speaks; set to <see cref="RespVersion.Resp3"/> after a successful <c>HELLO 3</c>.</summary>
    public RespVersion Version
    {
        get;
        set
        {
            if (value is not (RespVersion.Resp2 or RespVersion.Resp3))
            {
                throw new ArgumentOutOfRangeException(nameof(value), value, "Only RESP2 and RESP3 exist.");
            }

            field = value;
        }
    }

    /// <summary>
    /// How many error replies this writer has written: each <see cref="WriteError(string)"/>, <see cref="WriteBulkError"/>,
    /// and each relayed reply that is an error. A server compares it before and after a command to tell whether it failed.
    /// </summary>
    public long ErrorCount { get; private set; }

    private bool IsResp3 => Version == RespVersion.Resp3;

    /// <summary>Writes <c>+text</c>. CR and LF, which a simple string cannot hold, are written as spaces.</summary>
    /// <param name="utf8">The text, UTF-8 encoded.</param>
    public void WriteSimpleString(ReadOnlySpan<byte> utf8) => WriteLine((byte)'+', utf8);

    /// <summary>Writes <c>+text</c>. CR and LF, which a simple string cannot hold, are written as spaces.</summary>
    /// <param name="value">The text.</param>
    public void WriteSimpleString(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        WriteLine((byte)'+', value);
    }

    /// <summary>Writes <c>+OK</c>.</summary>
    public void WriteOk() => WriteRaw("+OK\r\n"u8);

    /// <summary>Writes <c>-message</c>, such as <c>ERR unknown command</c>. CR and LF are written as spaces.</summary>
    /// <param name="message">The error, starting with its code (<c>ERR</c>, <c>WRONGTYPE</c>...).</param>
    public void WriteError(string message)
    {
        ArgumentNullException.ThrowIfNull(message);
        ErrorCount++;
        WriteLine((byte)'-', message);
    }

    /// <summary>Writes <c>-message</c>. CR and LF are written as spaces.</summary>
    /// <param name="utf8Message">The error, UTF-8 encoded, starting with its code.</param>
    public void WriteError(ReadOnlySpan<byte> utf8Message)
    {
        ErrorCount++;
        WriteLine((byte)'-', utf8Message);
    }

    /// <summary>
    /// Writes a binary-safe error: RESP3 <c>!len</c> and the bytes; RESP2 has none, so there it is a simple error
    /// with CR and LF written as spaces.
    /// </summary>
    /// <param name="utf8Message">The error, starting with its code.</param>
    public void WriteBulkError(ReadOnlySpan<byte> utf8Message)
    {
        ErrorCount++;
        if (IsResp3)
        {
            WriteBlob((byte)'!', utf8Message);
        }
        else
        {
            WriteLine((byte)'-', utf8Message);
        }
    }

    /// <summary>Writes <c>:n</c>.</summary>
    /// <param name="value">The integer.</param>
    public void WriteInteger(long value)
    {
        switch (value)
        {
            case 0:
                WriteRaw(":0\r\n"u8);
                break;
            case 1:
                WriteRaw(":1\r\n"u8);
                break;
            default:
                WriteHeader((byte)':', value);
                break;
        }
    }

    /// <summary>Writes <c>$len</c> and the bytes.</summary>
    /// <param name="value">The bytes.</param>
    public void WriteBulkString(ReadOnlySpan<byte> value) => WriteBlob((byte)'$', value);

    /// <summary>Writes <c>$len</c> and the text's UTF-8 bytes, encoded straight into the output.</summary>
    /// <param name="value">The text; lone surrogates are written as U+FFFD.</param>
    public void WriteBulkString(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        int byteCount = Encoding.UTF8.GetByteCount(value);
        if (byteCount <= SingleSpanLimit)
        {
            Span<byte> span = Output.GetSpan(MaxHeaderLength + byteCount + 2);
            int written = FormatHeader(span, (byte)'$', byteCount);
            written += Encoding.UTF8.GetBytes(value, span[written..]);
            Output.Advance(AppendCrlf(span, written));
            return;
        }

        WriteHeader((byte)'$', byteCount);
        WriteUtf8Chunked(value, replaceLineBreaks: false);
        WriteRaw("\r\n"u8);
    }

    /// <summary>Writes <c>$len</c> and the bytes, segment by segment.</summary>
    /// <param name="value">The bytes.</param>
    public void WriteBulkString(ReadOnlySequence<byte> value)
    {
        if (value.IsSingleSegment)
        {
            WriteBlob((byte)'$', value.FirstSpan);
            return;
        }

        WriteHeader((byte)'$', value.Length);
        foreach (ReadOnlyMemory<byte> segment in value)
        {
            WriteRaw(segment.Span);
        }

        WriteRaw("\r\n"u8);
    }

    /// <summary>Writes a null: RESP3 <c>_</c>; RESP2 the null bulk string <c>$-1</c>.</summary>
    public void WriteNull() => WriteRaw(IsResp3 ? "_\r\n"u8 : "$-1\r\n"u8);

    /// <summary>Writes a null array: RESP3 <c>_</c>; RESP2 <c>*-1</c>.</summary>
    public void WriteNullArray() => WriteRaw(IsResp3 ? "_\r\n"u8 : "*-1\r\n"u8);

    /// <summary>Writes <c>*n</c>; the caller then writes the n elements.</summary>
    /// <param name="count">The number of elements.</param>
    public void WriteArrayHeader(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        WriteHeader((byte)'*', count);
    }

    /// <summary>Writes an array of simple strings, as Redis answers a container command's HELP subcommand.</summary>
    /// <param name="lines">The strings, each one line.</param>
    public void WriteSimpleStringArray(IReadOnlyList<string> lines)
    {
        ArgumentNullException.ThrowIfNull(lines);
        WriteArrayHeader(lines.Count);
        for (var i = 0; i < lines.Count; i++)
        {
            WriteSimpleString(lines[i]);
        }
    }

    /// <summary>Writes a map header: RESP3 <c>%n</c>; RESP2 <c>*2n</c>. The caller then writes key, value, key, value...</summary>
    /// <param name="pairs">The number of key/value pairs.</param>
    public void WriteMapHeader(int pairs)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(pairs);
        if (IsResp3)
        {
            WriteHeader((byte)'%', pairs);
        }
        else
        {
            WriteHeader((byte)'*', 2L * pairs);
        }
    }

    /// <summary>Writes a set header: RESP3 <c>~n</c>; RESP2 <c>*n</c>.</summary>
    /// <param name="count">The number of elements.</param>
    public void WriteSetHeader(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        WriteHeader(IsResp3 ? (byte)'~' : (byte)'*', count);
    }

    /// <summary>Writes a push header: RESP3 <c>&gt;n</c>; RESP2 <c>*n</c> (how pub/sub messages reach RESP2 clients).</summary>
    /// <param name="count">The number of elements.</param>
    public void WritePushHeader(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        WriteHeader(IsResp3 ? (byte)'>' : (byte)'*', count);
    }

    /// <summary>
    /// Writes a RESP3 attribute header <c>|n</c>; the caller then writes n key/value pairs and the reply they describe.
    /// </summary>
    /// <param name="pairs">The number of key/value pairs.</param>
    /// <exception cref="InvalidOperationException">The peer speaks RESP2, which has no attributes.</exception>
    public void WriteAttributeHeader(int pairs)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(pairs);
        if (!IsResp3)
        {
            throw new InvalidOperationException("RESP2 has no attributes; write them only to RESP3 peers.");
        }

        WriteHeader((byte)'|', pairs);
    }

    /// <summary>
    /// Writes a double: RESP3 <c>,value</c>; RESP2 a bulk string of the same text. The text is the shortest that
    /// round-trips, invariant, without an exponent for ordinary magnitudes (1e-5 to 1e15), and <c>inf</c>,
    /// <c>-inf</c> or <c>nan</c> for the special values.
    /// </summary>
    /// <param name="value">The number.</param>
    public void WriteDouble(double value)
    {
        Span<byte> text = stackalloc byte[MaxDoubleLength];
        int length = FormatDouble(value, text);
        if (IsResp3)
        {
            WriteLine((byte)',', text[..length]);
        }
        else
        {
            WriteBlob((byte)'$', text[..length]);
        }
    }

    /// <summary>Writes a boolean: RESP3 <c>#t</c> or <c>#f</c>; RESP2 <c>:1</c> or <c>:0</c>.</summary>
    /// <param name="value">The boolean.</param>
    public void WriteBoolean(bool value)
    {
        if (IsResp3)
        {
            WriteRaw(value ? "#t\r\n"u8 : "#f\r\n"u8);
        }
        else
        {
            WriteRaw(value ? ":1\r\n"u8 : ":0\r\n"u8);
        }
    }

    /// <summary>Writes a verbatim string: RESP3 <c>=len</c> then <c>fmt:text</c>; RESP2 a bulk string of the text alone.</summary>
    /// <param name="format3">The three-byte format, <c>"txt"u8</c> or <c>"mkd"u8</c>.</param>
    /// <param name="text">The text.</param>
    /// <exception cref="ArgumentException"><paramref name="format3"/> is not three bytes long.</exception>
    public void WriteVerbatimString(ReadOnlySpan<byte> format3, ReadOnlySpan<byte> text)
    {
        if (format3.Length != 3)
        {
            throw new ArgumentException("A verbatim string format is exactly three bytes, such as \"txt\".", nameof(format3));
        }

        if (!IsResp3)
        {
            WriteBlob((byte)'$', text);
            return;
        }

        WriteHeader((byte)'=', text.Length + 4L);
        Span<byte> prefix = Output.GetSpan(4);
        format3.CopyTo(prefix);
        prefix[3] = (byte)':';
        Output.Advance(4);
        WriteRaw(text);
        WriteRaw("\r\n"u8);
    }

    /// <summary>Writes a big number: RESP3 <c>(digits</c>; RESP2 a bulk string of the digits.</summary>
    /// <param name="digits">ASCII digits with an optional leading <c>-</c> or <c>+</c>.</param>
    /// <exception cref="ArgumentException"><paramref name="digits"/> is not an integer.</exception>
    public void WriteBigNumber(ReadOnlySpan<byte> digits)
    {
        if (!IsBigNumber(digits))
        {
            throw new ArgumentException("A big number is ASCII digits with an optional sign.", nameof(digits));
        }

        if (IsResp3)
        {
            WriteLine((byte)'(', digits);
        }
        else
        {
            WriteBlob((byte)'$', digits);
        }
    }

    /// <summary>Copies bytes that are already RESP-encoded, such as a cached reply, to the output.</summary>
    /// <param name="resp">The encoded bytes.</param>
    public void WriteRaw(ReadOnlySpan<byte> resp)
    {
        while (!resp.IsEmpty)
        {
            Span<byte> span = Output.GetSpan(Math.Min(resp.Length, SingleSpanLimit));
            int chunk = Math.Min(span.Length, resp.Length);
            resp[..chunk].CopyTo(span);
            Output.Advance(chunk);
            resp = resp[chunk..];
        }
    }

    /// <summary>
    /// Copies one whole reply that is already RESP-encoded (relayed from another server), counting it in
    /// <see cref="ErrorCount"/> when it is an error.
    /// </summary>
    /// <param name="reply">The encoded reply.</param>
    public void WriteRelayedReply(ReadOnlySpan<byte> reply)
    {
        if (!reply.IsEmpty && reply[0] is (byte)'-' or (byte)'!')
        {
            ErrorCount++;
        }

        WriteRaw(reply);
    }

    /// <summary>Whether bytes are a big number: an optional sign and at least one ASCII digit.</summary>
    internal static bool IsBigNumber(ReadOnlySpan<byte> text)
    {
        ReadOnlySpan<byte> digits = !text.IsEmpty && text[0] is (byte)'-' or (byte)'+' ? text[1..] : text;
        return !digits.IsEmpty && !digits.ContainsAnyExceptInRange((byte)'0', (byte)'9');
    }

    /// <summary>Formats a double as <see cref="WriteDouble"/> writes it; <paramref name="destination"/> needs 32 bytes.</summary>
    internal static int FormatDouble(double value, Span<byte> destination)
    {
        ReadOnlySpan<byte> special =
            double.IsNaN(value) ? "nan"u8
            : double.IsPositiveInfinity(value) ? "inf"u8
            : double.IsNegativeInfinity(value) ? "-inf"u8
            : default;
        if (!special.IsEmpty)
        {
            special.CopyTo(destination);
            return special.Length;
        }

        value.TryFormat(destination, out int written, "R", CultureInfo.InvariantCulture);

        // Redis writes exponents in lower case ("1e+20"); match it.
        int exponent = destination[..written].IndexOf((byte)'E');
        if (exponent >= 0)
        {
            destination[exponent] = (byte)'e';
        }

        return written;
    }

    // type byte + text + CRLF, with CR and LF in the text written as spaces.
    private void WriteLine(byte type, ReadOnlySpan<byte> text)
    {
        if (text.Length <= SingleSpanLimit)
        {
            Span<byte> span = Output.GetSpan(text.Length + 3);
            span[0] = type;
            text.CopyTo(span[1..]);
            ReplaceLineBreaks(span.Slice(1, text.Length));
            Output.Advance(AppendCrlf(span, text.Length + 1));
            return;
        }

        Span<byte> typeSpan = Output.GetSpan(1);
        typeSpan[0] = type;
        Output.Advance(1);
        while (!text.IsEmpty)
        {
            Span<byte> span = Output.GetSpan(Math.Min(text.Length, SingleSpanLimit));
            int chunk = Math.Min(span.Length, text.Length);
            text[..chunk].CopyTo(span);
            ReplaceLineBreaks(span[..chunk]);
            Output.Advance(chunk);
            text = text[chunk..];
        }

        WriteRaw("\r\n"u8);
    }

    private void WriteLine(byte type, string text)
    {
        // A UTF-16 code unit never needs more than three UTF-8 bytes.
        if (text.Length <= SingleSpanLimit / 3)
        {
            Span<byte> span = Output.GetSpan((text.Length * 3) + 3);
            span[0] = type;
            int length = Encoding.UTF8.GetBytes(text, span[1..]);
            ReplaceLineBreaks(span.Slice(1, length));
            Output.Advance(AppendCrlf(span, length + 1));
            return;
        }

        Span<byte> typeSpan = Output.GetSpan(1);
        typeSpan[0] = type;
        Output.Advance(1);
        WriteUtf8Chunked(text, replaceLineBreaks: true);
        WriteRaw("\r\n"u8);
    }

    private void WriteUtf8Chunked(ReadOnlySpan<char> text, bool replaceLineBreaks)
    {
        while (!text.IsEmpty)
        {
            // Four bytes hold any one character, so every round makes progress.
            Span<byte> span = Output.GetSpan(Math.Max(4, Math.Min(text.Length * 3, SingleSpanLimit)));
            Utf8.FromUtf16(text, span, out int read, out int written, replaceInvalidSequences: true, isFinalBlock: true);
            if (replaceLineBreaks)
            {
                ReplaceLineBreaks(span[..written]);
            }

            Output.Advance(written);
            text = text[read..];
        }
    }

    // type byte + length + CRLF + bytes + CRLF.
    private void WriteBlob(byte type, ReadOnlySpan<byte> value)
    {
        if (value.Length <= SingleSpanLimit)
        {
            Span<byte> span = Output.GetSpan(MaxHeaderLength + value.Length + 2);
            int written = FormatHeader(span, type, value.Length);
            value.CopyTo(span[written..]);
            Output.Advance(AppendCrlf(span, written + value.Length));
            return;
        }

        WriteHeader(type, value.Length);
        WriteRaw(value);
        WriteRaw("\r\n"u8);
    }

    private void WriteHeader(byte type, long value)
    {
        Span<byte> span = Output.GetSpan(MaxHeaderLength);
        Output.Advance(FormatHeader(span, type, value));
    }

    private static int FormatHeader(Span<byte> span, byte type, long value)
    {
        span[0] = type;
        Utf8Formatter.TryFormat(value, span[1..], out int digits);
        return AppendCrlf(span, digits + 1);
    }

    private static int AppendCrlf(Span<byte> span, int at)
    {
        span[at] = (byte)'\r';
        span[at + 1] = (byte)'\n';
        return at + 2;
    }

    // UTF-8 multi-byte sequences never contain the bytes of CR or LF, so replacing bytes is safe.
    private static void ReplaceLineBreaks(Span<byte> text)
    {
        if (text.ContainsAny((byte)'\r', (byte)'\n'))
        {
            text.Replace((byte)'\r', (byte)' ');
            text.Replace((byte)'\n', (byte)' ');
        }
    }
}
