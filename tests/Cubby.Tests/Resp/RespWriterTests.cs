using System.Buffers;
using System.Text;
using Cubby.Resp;

namespace Cubby.Tests.Resp;

public sealed class RespWriterTests
{
    public static TheoryData<string, RespVersion, string> ExactOutputs => new()
    {
        { "simple string", RespVersion.Resp2, "+hello world\r\n" },
        { "simple string text", RespVersion.Resp3, "+caf\u00c3\u00a9 x y\r\n" },
        { "ok", RespVersion.Resp2, "+OK\r\n" },
        { "error", RespVersion.Resp2, "-ERR bad  thing\r\n" },
        { "error bytes", RespVersion.Resp3, "-WRONGTYPE x\r\n" },
        { "bulk error", RespVersion.Resp3, "!8\r\nERR a\r\nb\r\n" },
        { "bulk error", RespVersion.Resp2, "-ERR a  b\r\n" },
        { "integer 0", RespVersion.Resp2, ":0\r\n" },
        { "integer 1", RespVersion.Resp2, ":1\r\n" },
        { "integer min", RespVersion.Resp2, ":-9223372036854775808\r\n" },
        { "integer max", RespVersion.Resp3, ":9223372036854775807\r\n" },
        { "bulk string", RespVersion.Resp2, "$5\r\na\r\nb\0\r\n" },
        { "bulk string empty", RespVersion.Resp2, "$0\r\n\r\n" },
        { "bulk string text", RespVersion.Resp2, "$6\r\nh\u00c3\u00a9llo\r\n" },
        { "bulk string sequence", RespVersion.Resp2, "$11\r\nhello world\r\n" },
        { "null", RespVersion.Resp2, "$-1\r\n" },
        { "null", RespVersion.Resp3, "_\r\n" },
        { "null array", RespVersion.Resp2, "*-1\r\n" },
        { "null array", RespVersion.Resp3, "_\r\n" },
        { "array", RespVersion.Resp2, "*2\r\n$1\r\na\r\n:7\r\n" },
        { "array", RespVersion.Resp3, "*2\r\n$1\r\na\r\n:7\r\n" },
        { "empty array", RespVersion.Resp2, "*0\r\n" },
        { "map", RespVersion.Resp2, "*4\r\n+a\r\n:1\r\n+b\r\n:2\r\n" },
        { "map", RespVersion.Resp3, "%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n" },
        { "set", RespVersion.Resp2, "*2\r\n+x\r\n+y\r\n" },
        { "set", RespVersion.Resp3, "~2\r\n+x\r\n+y\r\n" },
        { "push", RespVersion.Resp2, "*2\r\n$7\r\nmessage\r\n$2\r\nhi\r\n" },
        { "push", RespVersion.Resp3, ">2\r\n$7\r\nmessage\r\n$2\r\nhi\r\n" },
        { "attribute", RespVersion.Resp3, "|1\r\n+ttl\r\n:5\r\n$1\r\nv\r\n" },
        { "double", RespVersion.Resp2, "$3\r\n1.5\r\n" },
        { "double", RespVersion.Resp3, ",1.5\r\n" },
        { "boolean", RespVersion.Resp2, ":1\r\n:0\r\n" },
        { "boolean", RespVersion.Resp3, "#t\r\n#f\r\n" },
        { "verbatim", RespVersion.Resp2, "$5\r\nhello\r\n" },
        { "verbatim", RespVersion.Resp3, "=9\r\ntxt:hello\r\n" },
        { "big number", RespVersion.Resp2, "$21\r\n-12345678901234567890\r\n" },
        { "big number", RespVersion.Resp3, "(-12345678901234567890\r\n" },
        { "raw", RespVersion.Resp2, "+PONG\r\n" },
    };

    [Theory]
    [MemberData(nameof(ExactOutputs))]
    public void Each_method_writes_exact_bytes(string method, RespVersion version, string expected)
    {
        var output = new ArrayBufferWriter<byte>();
        var writer = new RespWriter(output, version);

        Write(writer, method);

        Assert.Equal(expected, Encoding.Latin1.GetString(output.WrittenSpan));

        // The same bytes when the output offers only exactly the room asked for.
        var exact = new ExactSpanBufferWriter();
        Write(new RespWriter(exact, version), method);
        Assert.Equal(expected, Encoding.Latin1.GetString(exact.Written));
    }

    [Theory]
    [InlineData(1.5, "1.5")]
    [InlineData(3.0, "3")]
    [InlineData(-0.25, "-0.25")]
    [InlineData(0.1, "0.1")]
    [InlineData(0.0, "0")]
    [InlineData(-0.0, "-0")]
    [InlineData(123456789.125, "123456789.125")]
    [InlineData(100000000000000.0, "100000000000000")]
    [InlineData(0.0001, "0.0001")]
    [InlineData(1e20, "1e+20")]
    [InlineData(1.7976931348623157e308, "1.7976931348623157e+308")]
    [InlineData(5e-324, "5e-324")]
    [InlineData(double.PositiveInfinity, "inf")]
    [InlineData(double.NegativeInfinity, "-inf")]
    [InlineData(double.NaN, "nan")]
    public void Doubles_are_written_as_shortest_invariant_text(double value, string text)
    {
        Assert.Equal("," + text + "\r\n", Written(RespVersion.Resp3, w => w.WriteDouble(value)));
        Assert.Equal("$" + text.Length + "\r\n" + text + "\r\n", Written(RespVersion.Resp2, w => w.WriteDouble(value)));
    }

    [Fact]
    public void Double_text_round_trips()
    {
        var random = new Random(5);
        Span<byte> text = stackalloc byte[32];
        for (int i = 0; i < 2000; i++)
        {
            double value = BitConverter.Int64BitsToDouble(random.NextInt64());
            if (!double.IsFinite(value))
            {
                continue;
            }

            int length = RespWriter.FormatDouble(value, text);
            Assert.Equal(value, double.Parse(Encoding.ASCII.GetString(text[..length]), System.Globalization.CultureInfo.InvariantCulture));
        }
    }

    [Fact]
    public void Line_breaks_in_simple_strings_and_errors_become_spaces()
    {
        Assert.Equal("-ERR a  b c\r\n", Written(RespVersion.Resp2, w => w.WriteError("ERR a\r\nb\nc")));
        Assert.Equal("+x y\r\n", Written(RespVersion.Resp2, w => w.WriteSimpleString("x\ry"u8)));
    }

    [Fact]
    public void Large_values_are_written_in_chunks_with_exact_bytes()
    {
        string text = string.Concat(Enumerable.Repeat("h\u00e9llo w\u00f6rld \U0001F600 ", 2000));
        byte[] utf8 = Encoding.UTF8.GetBytes(text);
        byte[] binary = Enumerable.Range(0, 100_000).Select(i => (byte)i).ToArray();
        string longError = "ERR " + new string('e', 20_000) + "\r\n" + text;

        byte[] expected = [
            .. Header('$', utf8.Length), .. utf8, .. "\r\n"u8,
            .. Header('$', binary.Length), .. binary, .. "\r\n"u8,
            .. Header('$', binary.Length), .. binary, .. "\r\n"u8,
            .. "-"u8, .. Encoding.UTF8.GetBytes(longError.Replace('\r', ' ').Replace('\n', ' ')), .. "\r\n"u8,
            .. "+"u8, .. binary.Select(b => b is (byte)'\r' or (byte)'\n' ? (byte)' ' : b), .. "\r\n"u8,
            .. Header('=', binary.Length + 4), .. "txt:"u8, .. binary, .. "\r\n"u8,
        ];

        foreach (IBufferWriter<byte> output in new IBufferWriter<byte>[] { new ArrayBufferWriter<byte>(), new ExactSpanBufferWriter() })
        {
            var writer = new RespWriter(output, RespVersion.Resp3);
            writer.WriteBulkString(text);
            writer.WriteBulkString(binary);
            writer.WriteBulkString(Sequences.Split(binary, 10, 4000, 4001, 90_000));
            writer.WriteError(longError);
            writer.WriteSimpleString(binary);
            writer.WriteVerbatimString("txt"u8, binary);

            byte[] actual = output is ArrayBufferWriter<byte> array ? array.WrittenSpan.ToArray() : ((ExactSpanBufferWriter)output).Written;
            Assert.Equal(expected, actual);
        }
    }

    [Fact]
    public void Lone_surrogates_are_written_as_replacement_characters_with_a_matching_length()
    {
        string small = "a\ud800b";
        string large = new string('x', 5000) + "\udc00" + new string('y', 5000);

        foreach (string text in new[] { small, large })
        {
            byte[] written = Encoding.Latin1.GetBytes(Written(RespVersion.Resp2, w => w.WriteBulkString(text)));
            ReadOnlySequence<byte> buffer = new(written);
            Assert.Equal(RespParseStatus.Complete, RespReplyReader.TryRead(buffer, RespLimits.Default, out RespValue? value, out SequencePosition end, out _));
            Assert.Equal(buffer.End, end);
            Assert.Equal(text.Replace('\ud800', '\ufffd').Replace('\udc00', '\ufffd'), value!.AsString());
        }
    }

    [Fact]
    public void Invalid_arguments_are_rejected()
    {
        var writer = new RespWriter(new ArrayBufferWriter<byte>(), RespVersion.Resp2);

        Assert.Throws<ArgumentOutOfRangeException>(() => writer.WriteArrayHeader(-1));
        Assert.Throws<ArgumentOutOfRangeException>(() => writer.WriteMapHeader(-1));
        Assert.Throws<ArgumentException>(() => writer.WriteVerbatimString("text"u8, "x"u8));
        Assert.Throws<ArgumentException>(() => writer.WriteBigNumber("12a"u8));
        Assert.Throws<ArgumentException>(() => writer.WriteBigNumber("-"u8));
        Assert.Throws<InvalidOperationException>(() => writer.WriteAttributeHeader(1));
        Assert.Throws<ArgumentOutOfRangeException>(() => writer.Version = (RespVersion)4);
        Assert.Throws<ArgumentNullException>(() => writer.Output = null!);
    }

    [Fact]
    public void Output_and_version_can_change_between_writes()
    {
        var first = new ArrayBufferWriter<byte>();
        var second = new ArrayBufferWriter<byte>();
        var writer = new RespWriter(first);

        writer.WriteNull();
        writer.Output = second;
        writer.Version = RespVersion.Resp3;
        writer.WriteNull();

        Assert.Equal("$-1\r\n"u8.ToArray(), first.WrittenSpan.ToArray());
        Assert.Equal("_\r\n"u8.ToArray(), second.WrittenSpan.ToArray());
        Assert.Same(second, writer.Output);
    }

    private static void Write(RespWriter writer, string method)
    {
        switch (method)
        {
            case "simple string": writer.WriteSimpleString("hello world"u8); break;
            case "simple string text": writer.WriteSimpleString("caf\u00e9 x\ny"); break;
            case "ok": writer.WriteOk(); break;
            case "error": writer.WriteError("ERR bad\r\nthing"); break;
            case "error bytes": writer.WriteError("WRONGTYPE x"u8); break;
            case "bulk error": writer.WriteBulkError("ERR a\r\nb"u8); break;
            case "integer 0": writer.WriteInteger(0); break;
            case "integer 1": writer.WriteInteger(1); break;
            case "integer min": writer.WriteInteger(long.MinValue); break;
            case "integer max": writer.WriteInteger(long.MaxValue); break;
            case "bulk string": writer.WriteBulkString("a\r\nb\0"u8); break;
            case "bulk string empty": writer.WriteBulkString(ReadOnlySpan<byte>.Empty); break;
            case "bulk string text": writer.WriteBulkString("h\u00e9llo"); break;
            case "bulk string sequence": writer.WriteBulkString(Sequences.Split("hello world"u8.ToArray(), 0, 3, 3, 7)); break;
            case "null": writer.WriteNull(); break;
            case "null array": writer.WriteNullArray(); break;
            case "array":
                writer.WriteArrayHeader(2);
                writer.WriteBulkString("a"u8);
                writer.WriteInteger(7);
                break;
            case "empty array": writer.WriteArrayHeader(0); break;
            case "map":
                writer.WriteMapHeader(2);
                writer.WriteSimpleString("a");
                writer.WriteInteger(1);
                writer.WriteSimpleString("b");
                writer.WriteInteger(2);
                break;
            case "set":
                writer.WriteSetHeader(2);
                writer.WriteSimpleString("x");
                writer.WriteSimpleString("y");
                break;
            case "push":
                writer.WritePushHeader(2);
                writer.WriteBulkString("message");
                writer.WriteBulkString("hi");
                break;
            case "attribute":
                writer.WriteAttributeHeader(1);
                writer.WriteSimpleString("ttl");
                writer.WriteInteger(5);
                writer.WriteBulkString("v"u8);
                break;
            case "double": writer.WriteDouble(1.5); break;
            case "boolean":
                writer.WriteBoolean(true);
                writer.WriteBoolean(false);
                break;
            case "verbatim": writer.WriteVerbatimString("txt"u8, "hello"u8); break;
            case "big number": writer.WriteBigNumber("-12345678901234567890"u8); break;
            case "raw": writer.WriteRaw("+PONG\r\n"u8); break;
            default: throw new ArgumentException(method, nameof(method));
        }
    }

    private static string Written(RespVersion version, Action<RespWriter> write)
    {
        var output = new ArrayBufferWriter<byte>();
        write(new RespWriter(output, version));
        return Encoding.Latin1.GetString(output.WrittenSpan);
    }

    private static byte[] Header(char type, int length) => Encoding.ASCII.GetBytes(type + length.ToString(System.Globalization.CultureInfo.InvariantCulture) + "\r\n");
}
