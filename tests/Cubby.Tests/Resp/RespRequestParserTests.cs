using System.Buffers;
using System.Text;
using Cubby.Resp;
using static Cubby.Tests.Resp.RequestParsing;
using static Cubby.Tests.Resp.Sequences;

namespace Cubby.Tests.Resp;

public sealed class RespRequestParserTests
{
    [Fact]
    public void Parses_an_array_of_bulk_strings()
    {
        const string command = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n";
        ParsedRequest parsed = ParseOne(Single(command + "*1\r\n$4\r\nPING\r\n"));

        Assert.Equal(RespParseStatus.Complete, parsed.Status);
        Assert.Equal(["SET", "key", "value"], parsed.Arguments);
        Assert.Equal(command.Length, parsed.Consumed);
        Assert.False(parsed.IsInline);
        Assert.Null(parsed.Error);
    }

    [Fact]
    public void Bulk_strings_are_binary_safe()
    {
        ParsedRequest parsed = ParseOne(Single("*3\r\n$3\r\nSET\r\n$0\r\n\r\n$6\r\na\r\n\0\xff$\r\n"));

        Assert.Equal(RespParseStatus.Complete, parsed.Status);
        Assert.Equal(["SET", "", "a\r\n\0\xff$"], parsed.Arguments);
    }

    [Fact]
    public void Every_proper_prefix_of_a_command_is_incomplete_and_consumes_nothing()
    {
        byte[] command = Bytes("*2\r\n$3\r\nGET\r\n$10\r\n0123456789\r\n");
        for (int length = 0; length < command.Length; length++)
        {
            ParsedRequest parsed = ParseOne(new ReadOnlySequence<byte>(command, 0, length));
            Assert.True(parsed.Status == RespParseStatus.Incomplete, $"prefix of {length} bytes gave {parsed.Status} {parsed.Error}");
            Assert.Equal(0, parsed.Consumed);
            Assert.Empty(parsed.Arguments);
        }
    }

    [Fact]
    public void Pipelined_commands_are_parsed_in_order()
    {
        var batch = new StringBuilder();
        for (int i = 0; i < 1000; i++)
        {
            string key = "key:" + i;
            if (i % 3 == 2)
            {
                batch.Append("GET ").Append(key).Append("\r\n");
            }
            else
            {
                batch.Append("*2\r\n$3\r\nGET\r\n$").Append(key.Length).Append("\r\n").Append(key).Append("\r\n");
            }
        }

        batch.Append("*2\r\n$3\r\nGET"); // a final, incomplete command
        (List<string[]> commands, ParsedRequest last) = ParseAll(Single(batch.ToString()));

        Assert.Equal(1000, commands.Count);
        for (int i = 0; i < commands.Count; i++)
        {
            Assert.Equal(["GET", "key:" + i], commands[i]);
        }

        Assert.Equal(RespParseStatus.Incomplete, last.Status);
        Assert.Equal(0, last.Consumed);
    }

    [Fact]
    public void Empty_commands_are_skipped_and_parsing_continues()
    {
        const string skipped = "*0\r\n*-1\r\n\r\n \t \r\n\n";
        ParsedRequest parsed = ParseOne(Single(skipped + "*1\r\n$4\r\nPING\r\n"));

        Assert.Equal(RespParseStatus.Complete, parsed.Status);
        Assert.Equal(["PING"], parsed.Arguments);
        Assert.Equal(skipped.Length + 14, parsed.Consumed);
    }

    [Theory]
    [InlineData("*0\r\n", 4)]
    [InlineData("*-1\r\n\r\n", 7)]
    [InlineData("*-10\r\n", 6)]
    [InlineData("*0\r\n*1\r\n$4\r\nPI", 4)]
    [InlineData("\r\nPIN", 2)]
    public void Incomplete_after_skipped_commands_consumes_the_skipped_bytes(string input, int consumed)
    {
        ParsedRequest parsed = ParseOne(Single(input));

        Assert.Equal(RespParseStatus.Incomplete, parsed.Status);
        Assert.Equal(consumed, parsed.Consumed);
        Assert.Empty(parsed.Arguments);
    }

    [Theory]
    [InlineData("*abc\r\n", "Protocol error: invalid multibulk length")]
    [InlineData("*01\r\n", "Protocol error: invalid multibulk length")]
    [InlineData("*+1\r\n", "Protocol error: invalid multibulk length")]
    [InlineData("*\r\n", "Protocol error: invalid multibulk length")]
    [InlineData("*1\rX", "Protocol error: invalid multibulk length")]
    [InlineData("*99999999999999999999\r\n", "Protocol error: invalid multibulk length")]
    [InlineData("*99999999999\r\n", "Protocol error: invalid multibulk length: 99999999999 exceeds the limit of 1048576 arguments")]
    [InlineData("*123456789012345678901", "Protocol error: too big mbulk count string")]
    [InlineData("*1\r\n:1\r\n", "Protocol error: expected '$', got ':'")]
    [InlineData("*1\r\n\u0001", "Protocol error: expected '$', got '\\x01'")]
    [InlineData("*2\r\n$3\r\nGET\r\n*1\r\n", "Protocol error: expected '$', got '*'")]
    [InlineData("*1\r\n$-5\r\n", "Protocol error: invalid bulk length")]
    [InlineData("*1\r\n$-1\r\n", "Protocol error: invalid bulk length")]
    [InlineData("*1\r\n$abc\r\n", "Protocol error: invalid bulk length")]
    [InlineData("*1\r\n$3\rX", "Protocol error: invalid bulk length")]
    [InlineData("*1\r\n$2147483648\r\n", "Protocol error: invalid bulk length: 2147483648 exceeds the limit of 16777216 bytes")]
    [InlineData("*1\r\n$600000000\r\n", "Protocol error: invalid bulk length: 600000000 exceeds the limit of 16777216 bytes")]
    [InlineData("*1\r\n$1234567890123456789012", "Protocol error: too big bulk count string")]
    [InlineData("*1\r\n$3\r\nfooXY", "Protocol error: expected CRLF after bulk string")]
    [InlineData("*1\r\n$3\r\nfoo\rX", "Protocol error: expected CRLF after bulk string")]
    [InlineData("*1\r\n$3\r\nfoo\n\r", "Protocol error: expected CRLF after bulk string")]
    public void Malformed_commands_are_rejected_with_a_message_naming_the_problem(string input, string expected)
    {
        ParsedRequest parsed = ParseOne(Single(input));

        Assert.Equal(RespParseStatus.Error, parsed.Status);
        Assert.Equal(expected, parsed.Error);
        Assert.Equal(0, parsed.Consumed);
        Assert.Empty(parsed.Arguments);
    }

    [Fact]
    public void An_error_after_skipped_commands_points_at_the_offending_command()
    {
        ParsedRequest parsed = ParseOne(Single("*0\r\n*x\r\n"));

        Assert.Equal(RespParseStatus.Error, parsed.Status);
        Assert.Equal(4, parsed.Consumed);
    }

    [Fact]
    public void Configured_limits_are_named_in_errors()
    {
        var limits = new RespLimits { MaxBulkBytes = 10, MaxArrayLength = 2, MaxRequestBytes = 12 };

        Assert.Equal("Protocol error: invalid bulk length: 11 exceeds the limit of 10 bytes", ParseOne(Single("*1\r\n$11\r\n"), limits).Error);
        Assert.Equal("Protocol error: invalid multibulk length: 3 exceeds the limit of 2 arguments", ParseOne(Single("*3\r\n"), limits).Error);
        Assert.Equal(
            "Protocol error: command arguments exceed the limit of 12 bytes",
            ParseOne(Single("*2\r\n$10\r\n0123456789\r\n$3\r\n"), limits).Error);
        Assert.Equal(RespParseStatus.Complete, ParseOne(Single("*2\r\n$10\r\n0123456789\r\n$2\r\nab\r\n"), limits).Status);
    }

    [Fact]
    public void Limits_reject_values_that_cannot_be_limits()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new RespLimits { MaxBulkBytes = 0 });
        Assert.Throws<ArgumentOutOfRangeException>(() => new RespLimits { MaxNestingDepth = -1 });
        Assert.Equal(new RespLimits(), RespLimits.Default);
        Assert.Equal(16 * 1024 * 1024, RespLimits.Default.MaxBulkBytes);
        Assert.Equal(1024 * 1024, RespLimits.Default.MaxArrayLength);
        Assert.Equal(64 * 1024, RespLimits.Default.MaxInlineBytes);
        Assert.Equal(32, RespLimits.Default.MaxNestingDepth);
    }

    [Fact]
    public void Arguments_outside_the_command_throw()
    {
        using var request = new RespRequest();
        Assert.Equal(RespParseStatus.Complete, ParseOne(Single("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"), request).Status);

        Assert.Equal(2, request.Count);
        Assert.Throws<ArgumentOutOfRangeException>(() => request[2].Length);
        Assert.Throws<ArgumentOutOfRangeException>(() => request[-1].Length);
    }

    [Fact]
    public void Argument_helpers_compare_and_convert()
    {
        using var request = new RespRequest();
        ParseOne(Single("*4\r\n$3\r\nset\r\n$2\r\n-7\r\n$2\r\n07\r\n$2\r\nh\u00e9\r\n"), request);

        Assert.True(request.ArgumentEquals(0, "SET"u8));
        Assert.False(request.ArgumentEquals(0, "GET"u8));
        Assert.True(request.TryGetInt64(1, out long value));
        Assert.Equal(-7, value);
        Assert.False(request.TryGetInt64(2, out _)); // Redis rejects leading zeros
        Assert.Equal("-7", request.GetString(1));
    }

    [Fact]
    public void A_failed_parse_leaves_the_request_empty()
    {
        using var request = new RespRequest();
        ParseOne(Single("*1\r\n$4\r\nPING\r\n"), request);
        Assert.Equal(1, request.Count);

        Assert.Equal(RespParseStatus.Incomplete, ParseOne(Single("*1\r\n$4\r\nPI"), request).Status);
        Assert.Equal(0, request.Count);
        Assert.Equal(RespParseStatus.Error, ParseOne(Single("*x\r\n"), request).Status);
        Assert.Equal(0, request.Count);
    }

    [Fact]
    public void A_request_is_reusable_across_big_and_small_commands_and_after_dispose()
    {
        using var request = new RespRequest();
        string big = new('v', 200_000);
        string[] many = Enumerable.Range(0, 5000).Select(i => i.ToString(System.Globalization.CultureInfo.InvariantCulture)).ToArray();

        Assert.Equal(["SET", "k", big], ParseOne(Single(ArrayCommand("SET", "k", big)), request).Arguments);
        Assert.Equal(["GET", "k"], ParseOne(Single(ArrayCommand("GET", "k")), request).Arguments);
        Assert.Equal(["DEL", .. many], ParseOne(Single(ArrayCommand(["DEL", .. many])), request).Arguments);
        Assert.Equal(["GET", "k"], ParseOne(Single("GET k\r\n"), request).Arguments);

        request.Dispose();
        Assert.Equal(0, request.Count);
        Assert.Equal(["PING"], ParseOne(Single(ArrayCommand("PING")), request).Arguments);
    }

    internal static string ArrayCommand(params string[] arguments)
    {
        var text = new StringBuilder().Append('*').Append(arguments.Length).Append("\r\n");
        foreach (string argument in arguments)
        {
            text.Append('$').Append(Encoding.Latin1.GetByteCount(argument)).Append("\r\n").Append(argument).Append("\r\n");
        }

        return text.ToString();
    }
}
