using Cubby.Resp;
using static Cubby.Tests.Resp.RequestParsing;
using static Cubby.Tests.Resp.Sequences;

namespace Cubby.Tests.Resp;

/// <summary>A command that arrived whole in one block is read where it lies, and reads exactly as a copied one.</summary>
public sealed class InPlaceParsingTests
{
    private static readonly RespLimits Small = new() { MaxArrayLength = 4, MaxBulkBytes = 8, MaxRequestBytes = 12 };

    public static TheoryData<string> Commands => new()
    {
        // Well-formed, read in place.
        "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$8\r\nva\r\nlue\0\xff\r\n",
        "*2\r\n$3\r\nGET\r\n$0\r\n\r\n*1\r\n$4\r\nPING\r\n",
        "*1\r\n$4\r\nPING\r\n",
        // Everything else goes to the general parser, which must answer the same as for the same bytes in pieces.
        "*0\r\n*1\r\n$4\r\nPING\r\n",
        "*-1\r\n*1\r\n$4\r\nPING\r\n",
        "*01\r\n$4\r\nPING\r\n",
        "*1\r\n$04\r\nPING\r\n",
        "*1\r\n$-1\r\n",
        "*1\r\n$+4\r\nPING\r\n",
        "*1\r\n$4\nPING\r\n",
        "*1\r\n$4\r\nPINGX\r\n",
        "*1\r\n$4\r\nPING\r",
        "*2\r\n$3\r\nGET\r\n",
        "*2\r\n$3\r\nGET\r\n$3",
        "*1\r\n:4\r\n",
        "*5\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n",
        "*1\r\n$9\r\n123456789\r\n",
        "*2\r\n$8\r\n12345678\r\n$8\r\n12345678\r\n",
        "*1\r\n$99999999999\r\n",
        "*99999999999\r\n",
        "GET k\r\n",
    };

    [Theory]
    [MemberData(nameof(Commands))]
    public void A_command_reads_the_same_in_place_and_copied(string command)
    {
        var whole = ParseOne(Single(command), Small);
        var pieces = ParseOne(PerByte(Bytes(command)), Small);

        Assert.Equal(pieces with { Arguments = [] }, whole with { Arguments = [] });
        Assert.Equal(pieces.Arguments, whole.Arguments);
    }

    [Fact]
    public void A_command_whole_in_one_block_is_borrowed_and_one_split_is_copied()
    {
        var command = Bytes("*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n");
        using var request = new RespRequest();

        Assert.Equal(RespParseStatus.Complete, RespRequestParser.TryParse(new(command), request, RespLimits.Default, out _, out _));
        Assert.True(request.IsBorrowed);
        Assert.Equal(["GET", "key"], Arguments(request));

        Assert.Equal(RespParseStatus.Complete, RespRequestParser.TryParse(Split(command, 10), request, RespLimits.Default, out _, out _));
        Assert.False(request.IsBorrowed);
        Assert.Equal(["GET", "key"], Arguments(request));
    }

    [Fact]
    public void An_owned_request_outlives_the_bytes_it_was_parsed_from()
    {
        var received = Bytes("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n");
        using var request = new RespRequest();
        RespRequestParser.TryParse(new(received), request, RespLimits.Default, out _, out _);

        request.Own();
        received.AsSpan().Fill((byte)'x');

        Assert.False(request.IsBorrowed);
        Assert.Equal(["SET", "key", "value"], Arguments(request));
    }

    [Fact]
    public void Appending_to_a_borrowed_request_leaves_the_received_bytes_alone()
    {
        var received = Bytes("*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n");
        var before = received.ToArray();
        using var request = new RespRequest();
        RespRequestParser.TryParse(new(received), request, RespLimits.Default, out _, out _);

        request.Append("more"u8);

        Assert.Equal(before, received);
        Assert.Equal(["GET", "key", "more"], Arguments(request));
    }
}
