using System.Buffers;
using Cubby.Resp;
using static Cubby.Tests.Resp.Sequences;

namespace Cubby.Tests.Resp;

public sealed class RespReplyReaderTests
{
    [Fact]
    public void Reads_scalars_of_every_type()
    {
        Assert.Equal((RespType.SimpleString, "OK"), TypeAndText(Read("+OK\r\n")));
        Assert.Equal((RespType.Error, "ERR boom"), TypeAndText(Read("-ERR boom\r\n")));
        Assert.Equal((RespType.BulkString, "a\r\nb"), TypeAndText(Read("$4\r\na\r\nb\r\n")));
        Assert.Equal((RespType.BulkString, ""), TypeAndText(Read("$0\r\n\r\n")));
        Assert.Equal((RespType.BulkError, "SYNTAX\r\nx"), TypeAndText(Read("!9\r\nSYNTAX\r\nx\r\n")));
        Assert.Equal((RespType.BigNumber, "3492890328409238509324850943850943825024385"), TypeAndText(Read("(3492890328409238509324850943850943825024385\r\n")));

        RespValue integer = Read(":-42\r\n");
        Assert.Equal((RespType.Integer, -42L, "-42"), (integer.Type, integer.Integer, integer.AsString()));
        Assert.Equal(17, Read(":+17\r\n").Integer);
        Assert.Equal(long.MinValue, Read(":-9223372036854775808\r\n").Integer);

        RespValue verbatim = Read("=15\r\ntxt:Some string\r\n");
        Assert.Equal((RespType.VerbatimString, "txt", "Some string"), (verbatim.Type, verbatim.VerbatimFormat, verbatim.AsString()));

        Assert.True(Read("#t\r\n").Boolean);
        Assert.False(Read("#f\r\n").Boolean);
        Assert.Equal(RespType.Boolean, Read("#f\r\n").Type);
    }

    [Theory]
    [InlineData(",1.23\r\n", 1.23)]
    [InlineData(",-10\r\n", -10.0)]
    [InlineData(",1.5e3\r\n", 1500.0)]
    [InlineData(",1E-2\r\n", 0.01)]
    [InlineData(",inf\r\n", double.PositiveInfinity)]
    [InlineData(",+inf\r\n", double.PositiveInfinity)]
    [InlineData(",-inf\r\n", double.NegativeInfinity)]
    [InlineData(",nan\r\n", double.NaN)]
    public void Reads_doubles(string input, double expected)
    {
        RespValue value = Read(input);

        Assert.Equal(RespType.Double, value.Type);
        Assert.Equal(expected, value.Double);
    }

    [Fact]
    public void Reads_the_nulls_of_both_versions()
    {
        RespValue bulk = Read("$-1\r\n");
        RespValue array = Read("*-1\r\n");
        RespValue resp3 = Read("_\r\n");

        Assert.True(bulk.IsNull && array.IsNull && resp3.IsNull);
        Assert.Equal(RespType.BulkString, bulk.Type);
        Assert.Equal(RespType.Array, array.Type);
        Assert.Equal(RespType.Null, resp3.Type);
        Assert.Null(bulk.AsString());
        Assert.Empty(array.Items);
    }

    [Fact]
    public void Reads_aggregates_of_every_type()
    {
        RespValue array = Read("*3\r\n:1\r\n*2\r\n+a\r\n$-1\r\n*0\r\n");
        Assert.Equal(RespType.Array, array.Type);
        Assert.Equal(3, array.Items.Count);
        Assert.Equal(1, array.Items[0].Integer);
        Assert.Equal("a", array.Items[1].Items[0].AsString());
        Assert.True(array.Items[1].Items[1].IsNull);
        Assert.Empty(array.Items[2].Items);

        RespValue map = Read("%2\r\n+first\r\n:1\r\n+second\r\n#t\r\n");
        Assert.Equal(RespType.Map, map.Type);
        Assert.Equal(["first", "1", "second", "t"], map.Items.Select(v => v.AsString()));

        RespValue set = Read("~2\r\n+x\r\n+y\r\n");
        Assert.Equal(RespType.Set, set.Type);
        Assert.Equal(["x", "y"], set.Items.Select(v => v.AsString()));

        RespValue push = Read(">2\r\n$7\r\nmessage\r\n$2\r\nhi\r\n");
        Assert.Equal(RespType.Push, push.Type);
        Assert.Equal(["message", "hi"], push.Items.Select(v => v.AsString()));
    }

    [Fact]
    public void Attributes_before_replies_and_elements_are_skipped()
    {
        RespValue value = Read("|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n*2\r\n:2039123\r\n|1\r\n+ttl\r\n:3\r\n:9543892\r\n");

        Assert.Equal(RespType.Array, value.Type);
        Assert.Equal([2039123L, 9543892L], value.Items.Select(v => v.Integer));
        Assert.Equal(RespType.Null, Read("|0\r\n_\r\n").Type);
    }

    [Fact]
    public void Skip_finds_the_end_of_each_pipelined_reply()
    {
        string[] replies = ["+OK\r\n", "|1\r\n+a\r\n+b\r\n*2\r\n%1\r\n+k\r\n~1\r\n:1\r\n_\r\n", "$3\r\nabc\r\n", ">1\r\n*0\r\n", "*-1\r\n"];
        ReadOnlySequence<byte> buffer = Single(string.Concat(replies));

        foreach (string reply in replies)
        {
            Assert.Equal(RespParseStatus.Complete, RespReplyReader.TrySkip(buffer, RespLimits.Default, out SequencePosition end, out string? error));
            Assert.Null(error);
            Assert.Equal(reply.Length, buffer.Slice(buffer.Start, end).Length);
            buffer = buffer.Slice(end);
        }

        Assert.Equal(RespParseStatus.Incomplete, RespReplyReader.TrySkip(buffer, RespLimits.Default, out SequencePosition none, out _));
        Assert.Equal(buffer.Start, none);
    }

    [Fact]
    public void A_reply_split_at_any_boundary_reads_the_same()
    {
        byte[] data = Bytes("|1\r\n+a\r\n:1\r\n*4\r\n%1\r\n$5\r\nhello\r\n,-1.5\r\n=8\r\nmkd:# hi\r\n(-123456789012345678901\r\n>2\r\n#t\r\n!3\r\nERR\r\n");
        string expected = ReadAll(new ReadOnlySequence<byte>(data)).ToString();
        Assert.Equal("[{\"hello\": (double) -1.5}, (mkd) \"# hi\", (big number) -123456789012345678901, >[(true), (error) ERR]]", expected);

        for (int cut = 0; cut <= data.Length; cut++)
        {
            Assert.Equal(expected, ReadAll(Split(data, cut)).ToString());
            Assert.Equal(expected, ReadAll(Split(data, cut, cut, cut)).ToString());
        }

        Assert.Equal(expected, ReadAll(PerByte(data)).ToString());
        for (int length = 0; length < data.Length; length++)
        {
            Assert.Equal(RespParseStatus.Incomplete, RespReplyReader.TryRead(PerByte(data[..length]), RespLimits.Default, out RespValue? value, out _, out _));
            Assert.Null(value);
        }
    }

    [Theory]
    [InlineData("?\r\n", "Protocol error: unknown reply type '?'")]
    [InlineData(":abc\r\n", "Protocol error: invalid integer")]
    [InlineData(":\r\n", "Protocol error: invalid integer")]
    [InlineData(":99999999999999999999\r\n", "Protocol error: invalid integer")]
    [InlineData(":123456789012345678901234\r\n", "Protocol error: invalid integer")]
    [InlineData(",abc\r\n", "Protocol error: invalid double")]
    [InlineData(", 1\r\n", "Protocol error: invalid double")]
    [InlineData("#x\r\n", "Protocol error: invalid boolean")]
    [InlineData("#tt\r\n", "Protocol error: invalid boolean")]
    [InlineData("_x\r\n", "Protocol error: invalid null")]
    [InlineData("(12a\r\n", "Protocol error: invalid big number")]
    [InlineData("=3\r\ntxt\r\n", "Protocol error: verbatim string without a 'fmt:' prefix")]
    [InlineData("=5\r\ntxtab\r\n", "Protocol error: verbatim string without a 'fmt:' prefix")]
    [InlineData("$3\r\nabcd\r\n", "Protocol error: expected CRLF after bulk string")]
    [InlineData("$-2\r\n", "Protocol error: invalid '$' length")]
    [InlineData("!-1\r\n", "Protocol error: invalid '!' length")]
    [InlineData("%-1\r\n", "Protocol error: invalid '%' length")]
    [InlineData("*x\r\n", "Protocol error: invalid '*' length")]
    [InlineData("+OK\rX", "Protocol error: '+' line not terminated by CRLF")]
    [InlineData("$2147483648\r\n", "Protocol error: bulk length 2147483648 exceeds the limit of 16777216 bytes")]
    [InlineData("*99999999999\r\n", "Protocol error: aggregate of 99999999999 elements exceeds the limit of 1048576")]
    [InlineData("%600000\r\n", "Protocol error: aggregate of 1200000 elements exceeds the limit of 1048576")]
    public void Malformed_replies_are_rejected(string input, string expected)
    {
        RespParseStatus status = RespReplyReader.TryRead(Single(input), RespLimits.Default, out RespValue? value, out SequencePosition consumed, out string? error);

        Assert.Equal(RespParseStatus.Error, status);
        Assert.Equal(expected, error);
        Assert.Null(value);
        Assert.Equal(0, consumed.GetInteger());
        Assert.Equal(RespParseStatus.Error, RespReplyReader.TrySkip(Single(input), RespLimits.Default, out _, out string? skipError));
        Assert.Equal(expected, skipError);
    }

    [Fact]
    public void Simple_lines_are_limited_by_the_bulk_limit()
    {
        var limits = new RespLimits { MaxBulkBytes = 8 };

        Assert.Equal(RespParseStatus.Complete, RespReplyReader.TrySkip(Single("+12345678\r\n"), limits, out _, out _));
        Assert.Equal(RespParseStatus.Incomplete, RespReplyReader.TrySkip(Single("+12345678"), limits, out _, out _));
        Assert.Equal(RespParseStatus.Error, RespReplyReader.TrySkip(Single("+123456789"), limits, out _, out string? error));
        Assert.Equal("Protocol error: '+' line longer than 8 bytes", error);
    }

    [Fact]
    public void Nesting_is_limited()
    {
        var limits = new RespLimits { MaxNestingDepth = 3 };

        Assert.Equal(RespParseStatus.Complete, RespReplyReader.TrySkip(Single("*1\r\n*1\r\n*1\r\n:1\r\n"), limits, out _, out _));
        Assert.Equal(RespParseStatus.Complete, RespReplyReader.TrySkip(Single("*2\r\n*1\r\n*0\r\n*1\r\n*1\r\n_\r\n"), limits, out _, out _));
        Assert.Equal(RespParseStatus.Error, RespReplyReader.TrySkip(Single("*1\r\n*1\r\n*1\r\n*0\r\n"), limits, out _, out string? error));
        Assert.Equal("Protocol error: reply nested deeper than the limit of 3 levels", error);
        Assert.Equal(RespParseStatus.Error, RespReplyReader.TrySkip(Single("*1\r\n%1\r\n|1\r\n+a\r\n+b\r\n+k\r\n:1\r\n"), new RespLimits { MaxNestingDepth = 2 }, out _, out _));
    }

    [Fact]
    public void Deep_nesting_with_a_high_limit_is_read_without_recursion()
    {
        const int depth = 5000;
        string input = string.Concat(Enumerable.Repeat("*1\r\n", depth)) + ":7\r\n";
        var limits = new RespLimits { MaxNestingDepth = depth };

        Assert.Equal(RespParseStatus.Complete, RespReplyReader.TrySkip(Single(input), limits, out _, out _));
        Assert.Equal(RespParseStatus.Error, RespReplyReader.TrySkip(Single("*1\r\n" + input), limits, out _, out _));

        Assert.Equal(RespParseStatus.Complete, RespReplyReader.TryRead(Single(input), limits, out RespValue? value, out _, out _));
        for (int level = 0; level < depth; level++)
        {
            value = Assert.Single(value!.Items);
        }

        Assert.Equal(7, value!.Integer);
    }

    [Fact]
    public void Huge_declared_sizes_are_incomplete_without_allocating()
    {
        foreach (string input in new[] { "*1000000\r\n", "$16777216\r\nabc", "%500000\r\n+a\r\n" })
        {
            ReadOnlySequence<byte> buffer = Single(input);
            RespReplyReader.TryRead(buffer, RespLimits.Default, out _, out _, out _);

            long before = GC.GetAllocatedBytesForCurrentThread();
            RespParseStatus status = RespReplyReader.TryRead(buffer, RespLimits.Default, out RespValue? value, out _, out _);
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

            Assert.Equal(RespParseStatus.Incomplete, status);
            Assert.Null(value);
            Assert.True(allocated < 1024, $"{input.Trim()} allocated {allocated} bytes");
        }
    }

    [Fact]
    public void ToString_shows_a_readable_form()
    {
        Assert.Equal("[\"a\\\"b\", (integer) 3, (nil), ~[(false)], {\"k\": (double) inf}, (error) ERR x]",
            Read("*6\r\n$3\r\na\"b\r\n:3\r\n_\r\n~1\r\n#f\r\n%1\r\n+k\r\n,inf\r\n-ERR x\r\n").ToString());
        Assert.Equal("\"\\x00\\xff\\\\\"", Read("$3\r\n\0\xff\\\r\n").ToString());
    }

    private static (RespType, string?) TypeAndText(RespValue value) => (value.Type, value.AsString());

    private static RespValue Read(string input) => ReadAll(Single(input));

    private static RespValue ReadAll(ReadOnlySequence<byte> buffer)
    {
        RespParseStatus status = RespReplyReader.TryRead(buffer, RespLimits.Default, out RespValue? value, out SequencePosition consumed, out string? error);
        Assert.True(status == RespParseStatus.Complete, $"{status}: {error}");
        Assert.Equal(buffer.Length, buffer.Slice(buffer.Start, consumed).Length);
        return value!;
    }
}
