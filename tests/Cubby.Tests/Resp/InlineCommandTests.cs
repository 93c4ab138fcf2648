using Cubby.Resp;
using static Cubby.Tests.Resp.RequestParsing;
using static Cubby.Tests.Resp.Sequences;

namespace Cubby.Tests.Resp;

public sealed class InlineCommandTests
{
    [Theory]
    [InlineData("PING\r\n", new[] { "PING" })]
    [InlineData("PING\n", new[] { "PING" })]
    [InlineData("  SET  key \t value \r\n", new[] { "SET", "key", "value" })]
    [InlineData("SET k \"hello world\"\r\n", new[] { "SET", "k", "hello world" })]
    [InlineData("SET k 'hello world'\r\n", new[] { "SET", "k", "hello world" })]
    [InlineData("ECHO \"a\\n\\r\\t\\b\\a\\\\\\\"z\"\r\n", new[] { "ECHO", "a\n\r\t\b\a\\\"z" })]
    [InlineData("ECHO \"\\x41\\x7a\\xfF\"\r\n", new[] { "ECHO", "Az\xff" })]
    [InlineData("ECHO \"\\xZZ\\q\"\r\n", new[] { "ECHO", "xZZq" })]
    [InlineData("ECHO 'it\\'s' 'a\\nb'\r\n", new[] { "ECHO", "it's", "a\\nb" })]
    [InlineData("ECHO \"\" ''\r\n", new[] { "ECHO", "", "" })]
    [InlineData("ECHO foo\"bar baz\"\r\n", new[] { "ECHO", "foobar baz" })]
    [InlineData("ECHO a\rb\r\n", new[] { "ECHO", "a", "b" })]
    [InlineData("ECHO \"x\"\t\r\n", new[] { "ECHO", "x" })]
    [InlineData("ECHO \u00e9t\u00e9\r\n", new[] { "ECHO", "\u00e9t\u00e9" })]
    public void Inline_commands_are_split_with_redis_quoting(string line, string[] expected)
    {
        ParsedRequest parsed = ParseOne(Single(line));

        Assert.Equal(RespParseStatus.Complete, parsed.Status);
        Assert.Equal(expected, parsed.Arguments);
        Assert.Equal(line.Length, parsed.Consumed);
        Assert.True(parsed.IsInline);
    }

    [Theory]
    [InlineData("SET k \"abc\r\n")]
    [InlineData("SET k 'abc\r\n")]
    [InlineData("SET k \"abc\"def\r\n")]
    [InlineData("SET k 'abc'def\r\n")]
    [InlineData("ECHO \"abc\\\"\r\n")]
    [InlineData("ECHO \"abc\\\r\n")]
    public void Unbalanced_quotes_are_an_error(string line)
    {
        ParsedRequest parsed = ParseOne(Single(line));

        Assert.Equal(RespParseStatus.Error, parsed.Status);
        Assert.Equal("Protocol error: unbalanced quotes in request", parsed.Error);
        Assert.Empty(parsed.Arguments);
    }

    [Fact]
    public void An_inline_command_without_a_newline_is_incomplete()
    {
        ParsedRequest parsed = ParseOne(Single("GET key"));

        Assert.Equal(RespParseStatus.Incomplete, parsed.Status);
        Assert.Equal(0, parsed.Consumed);
    }

    [Theory]
    [InlineData(16, false, RespParseStatus.Incomplete)]
    [InlineData(17, false, RespParseStatus.Error)]
    [InlineData(16, true, RespParseStatus.Complete)]
    [InlineData(17, true, RespParseStatus.Error)]
    public void Inline_lines_are_limited(int length, bool terminated, RespParseStatus expected)
    {
        var limits = new RespLimits { MaxInlineBytes = 16 };
        string line = new string('A', length) + (terminated ? "\r\n" : "");

        ParsedRequest parsed = ParseOne(Single(line), limits);

        Assert.Equal(expected, parsed.Status);
        if (expected == RespParseStatus.Error)
        {
            Assert.Equal("Protocol error: too big inline request", parsed.Error);
        }
    }

    [Fact]
    public void A_line_at_the_limit_waits_for_its_line_feed()
    {
        var limits = new RespLimits { MaxInlineBytes = 16 };

        Assert.Equal(RespParseStatus.Incomplete, ParseOne(Single(new string('A', 16) + "\r"), limits).Status);
        Assert.Equal(RespParseStatus.Error, ParseOne(Single(new string('A', 16) + "\rB"), limits).Status);
    }

    [Fact]
    public void A_huge_stream_without_newline_is_rejected_with_the_default_limit()
    {
        ParsedRequest parsed = ParseOne(Single(new string('x', (64 * 1024) + 2)));

        Assert.Equal(RespParseStatus.Error, parsed.Status);
        Assert.Equal("Protocol error: too big inline request", parsed.Error);
    }
}
