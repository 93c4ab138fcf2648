using System.Buffers;
using Cubby.Resp;
using static Cubby.Tests.Resp.RequestParsing;
using static Cubby.Tests.Resp.Sequences;

namespace Cubby.Tests.Resp;

public sealed class RequestSegmentationTests
{
    // Array commands with binary values, skipped commands, and inline commands with quoting, back to back.
    private const string Batch =
        "*3\r\n$3\r\nSET\r\n$5\r\nmykey\r\n$11\r\nva\r\nlue\0\xff\r\n\r\n" +
        "*0\r\n" +
        "SET k \"a b\\x41\" 'c\\'d'\r\n" +
        "\r\n" +
        "*2\r\n$3\r\nGET\r\n$0\r\n\r\n" +
        "PING\n";

    private static readonly string[][] BatchCommands =
    [
        ["SET", "mykey", "va\r\nlue\0\xff\r\n"],
        ["SET", "k", "a bA", "c'd"],
        ["GET", ""],
        ["PING"],
    ];

    public static TheoryData<string, string[]> SingleCommands => new()
    {
        { "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$10\r\n0123456789\r\n", ["SET", "key", "0123456789"] },
        { "*1\r\n$12\r\nab\r\ncd\r\n\r\nef\r\n", ["ab\r\ncd\r\n\r\nef"] },
        { "SET \"x\\ty\" 'z'\r\n", ["SET", "x\ty", "z"] },
        { "PING\n", ["PING"] },
    };

    [Fact]
    public void The_batch_parses_from_one_segment()
    {
        (List<string[]> commands, ParsedRequest last) = ParseAll(Single(Batch));

        Assert.Equal(BatchCommands, commands);
        Assert.Equal(RespParseStatus.Incomplete, last.Status);
    }

    [Fact]
    public void The_batch_parses_when_split_at_every_byte_boundary()
    {
        byte[] data = Bytes(Batch);
        for (int cut = 0; cut <= data.Length; cut++)
        {
            (List<string[]> commands, ParsedRequest last) = ParseAll(Split(data, cut));

            Assert.True(BatchCommands.SequenceEqual(commands, new ArgumentsComparer()), $"split at {cut}");
            Assert.Equal(RespParseStatus.Incomplete, last.Status);
            Assert.Equal(0, last.Consumed);
        }
    }

    [Fact]
    public void The_batch_parses_with_an_empty_segment_at_every_byte_boundary()
    {
        byte[] data = Bytes(Batch);
        for (int cut = 0; cut <= data.Length; cut++)
        {
            (List<string[]> commands, _) = ParseAll(Split(data, cut, cut, cut));

            Assert.True(BatchCommands.SequenceEqual(commands, new ArgumentsComparer()), $"empty segments at {cut}");
        }
    }

    [Fact]
    public void The_batch_parses_with_one_segment_per_byte()
    {
        (List<string[]> commands, ParsedRequest last) = ParseAll(PerByte(Bytes(Batch)));

        Assert.Equal(BatchCommands, commands);
        Assert.Equal(RespParseStatus.Incomplete, last.Status);
    }

    [Theory]
    [MemberData(nameof(SingleCommands))]
    public void A_command_parses_when_split_at_any_two_boundaries(string command, string[] expected)
    {
        byte[] data = Bytes(command);
        for (int first = 0; first <= data.Length; first++)
        {
            for (int second = first; second <= data.Length; second++)
            {
                ParsedRequest parsed = ParseOne(Split(data, first, second));

                Assert.True(parsed.Status == RespParseStatus.Complete, $"split at {first} and {second}: {parsed.Status} {parsed.Error}");
                Assert.Equal(expected, parsed.Arguments);
                Assert.Equal(data.Length, parsed.Consumed);
            }
        }
    }

    [Theory]
    [MemberData(nameof(SingleCommands))]
    public void A_command_arriving_byte_by_byte_is_incomplete_until_its_last_byte(string command, string[] expected)
    {
        byte[] data = Bytes(command);
        for (int length = 0; length < data.Length; length++)
        {
            ReadOnlySequence<byte> arrived = PerByte(data[..length]);
            ParsedRequest parsed = ParseOne(arrived);
            Assert.True(parsed.Status == RespParseStatus.Incomplete, $"after {length} bytes: {parsed.Status} {parsed.Error}");
            Assert.Equal(0, parsed.Consumed);
        }

        Assert.Equal(expected, ParseOne(PerByte(data)).Arguments);
    }

    [Fact]
    public void Header_digits_split_across_segments_are_read_whole()
    {
        byte[] data = Bytes("*2\r\n$3\r\nGET\r\n$100\r\n" + new string('x', 100) + "\r\n");
        ReadOnlySequence<byte> buffer = Split(data, 1, 2, 3, 14, 15, 16, 17);

        Assert.Equal(["GET", new string('x', 100)], ParseOne(buffer).Arguments);
    }

    private sealed class ArgumentsComparer : IEqualityComparer<string[]>
    {
        public bool Equals(string[]? x, string[]? y) => x!.SequenceEqual(y!);

        public int GetHashCode(string[] obj) => obj.Length;
    }
}
