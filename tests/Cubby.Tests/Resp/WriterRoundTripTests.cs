using System.Buffers;
using System.Text;
using Cubby.Resp;

namespace Cubby.Tests.Resp;

public sealed class WriterRoundTripTests
{
    [Theory]
    [InlineData(RespVersion.Resp2)]
    [InlineData(RespVersion.Resp3)]
    public void Everything_written_reads_back(RespVersion version)
    {
        bool resp3 = version == RespVersion.Resp3;
        var output = new ArrayBufferWriter<byte>();
        var writer = new RespWriter(output, version);

        writer.WriteSimpleString("hi");
        writer.WriteOk();
        writer.WriteError("ERR nope");
        writer.WriteBulkError("ERR bulk"u8);
        writer.WriteInteger(-123);
        writer.WriteBulkString("b\u00e9");
        writer.WriteBulkString(new byte[] { 0, 13, 10, 255 });
        writer.WriteNull();
        writer.WriteNullArray();
        writer.WriteDouble(2.5);
        writer.WriteBoolean(true);
        writer.WriteVerbatimString("txt"u8, "line1\nline2"u8);
        writer.WriteBigNumber("123456789012345678901234567890"u8);
        writer.WriteMapHeader(1);
        writer.WriteBulkString("k"u8);
        writer.WriteSetHeader(2);
        writer.WriteInteger(1);
        writer.WriteInteger(2);
        writer.WritePushHeader(1);
        writer.WriteArrayHeader(0);

        var values = new List<RespValue>();
        ReadOnlySequence<byte> buffer = new(output.WrittenMemory);
        while (RespReplyReader.TryRead(buffer, RespLimits.Default, out RespValue? value, out SequencePosition consumed, out string? error) == RespParseStatus.Complete)
        {
            values.Add(value!);
            buffer = buffer.Slice(consumed);
        }

        Assert.True(buffer.IsEmpty, "every byte written was read back");
        Assert.Equal(15, values.Count);
        AssertValue(values[0], RespType.SimpleString, "hi");
        AssertValue(values[1], RespType.SimpleString, "OK");
        AssertValue(values[2], RespType.Error, "ERR nope");
        AssertValue(values[3], resp3 ? RespType.BulkError : RespType.Error, "ERR bulk");
        Assert.Equal((RespType.Integer, -123L), (values[4].Type, values[4].Integer));
        AssertValue(values[5], RespType.BulkString, "b\u00e9");
        Assert.Equal(new byte[] { 0, 13, 10, 255 }, values[6].Bytes.ToArray());
        Assert.True(values[7].IsNull);
        Assert.Equal(resp3 ? RespType.Null : RespType.BulkString, values[7].Type);
        Assert.True(values[8].IsNull);
        Assert.Equal(resp3 ? RespType.Null : RespType.Array, values[8].Type);

        if (resp3)
        {
            Assert.Equal((RespType.Double, 2.5), (values[9].Type, values[9].Double));
            Assert.Equal((RespType.Boolean, true), (values[10].Type, values[10].Boolean));
            Assert.Equal("txt", values[11].VerbatimFormat);
            AssertValue(values[11], RespType.VerbatimString, "line1\nline2");
            AssertValue(values[12], RespType.BigNumber, "123456789012345678901234567890");
        }
        else
        {
            AssertValue(values[9], RespType.BulkString, "2.5");
            Assert.Equal((RespType.Integer, 1L), (values[10].Type, values[10].Integer));
            AssertValue(values[11], RespType.BulkString, "line1\nline2");
            AssertValue(values[12], RespType.BulkString, "123456789012345678901234567890");
        }

        // Map { "k": Set [1, 2] }, then a push holding an empty array.
        RespValue map = values[13];
        Assert.Equal(resp3 ? RespType.Map : RespType.Array, map.Type);
        Assert.Equal(2, map.Items.Count);
        AssertValue(map.Items[0], RespType.BulkString, "k");
        RespValue set = map.Items[1];
        Assert.Equal(resp3 ? RespType.Set : RespType.Array, set.Type);
        Assert.Equal(1, set.Items[0].Integer);
        Assert.Equal(2, set.Items[1].Integer);
        Assert.Equal(2, set.Items.Count);
        Assert.Equal(resp3 ? RespType.Push : RespType.Array, values[14].Type);
        Assert.Equal(RespType.Array, Assert.Single(values[14].Items).Type);
    }

    [Fact]
    public void A_push_with_nested_aggregates_round_trips_with_attributes()
    {
        var output = new ArrayBufferWriter<byte>();
        var writer = new RespWriter(output, RespVersion.Resp3);

        writer.WriteAttributeHeader(1);
        writer.WriteSimpleString("meta");
        writer.WriteMapHeader(0);
        writer.WritePushHeader(3);
        writer.WriteBulkString("message");
        writer.WriteBulkString("channel");
        writer.WriteArrayHeader(2);
        writer.WriteDouble(double.NegativeInfinity);
        writer.WriteBoolean(false);

        Assert.Equal(RespParseStatus.Complete, RespReplyReader.TryRead(new ReadOnlySequence<byte>(output.WrittenMemory), RespLimits.Default, out RespValue? value, out _, out _));
        Assert.Equal(RespType.Push, value!.Type);
        Assert.Equal("message", value.Items[0].AsString());
        Assert.Equal(double.NegativeInfinity, value.Items[2].Items[0].Double);
        Assert.False(value.Items[2].Items[1].Boolean);
    }

    [Fact]
    public void A_command_written_as_an_array_of_bulk_strings_parses_as_a_request()
    {
        var output = new ArrayBufferWriter<byte>();
        var writer = new RespWriter(output);
        writer.WriteArrayHeader(3);
        writer.WriteBulkString("SET");
        writer.WriteBulkString("key"u8);
        writer.WriteBulkString(Encoding.UTF8.GetBytes("v\u00e4lue"));

        using var request = new RespRequest();
        Assert.Equal(RespParseStatus.Complete, RespRequestParser.TryParse(new ReadOnlySequence<byte>(output.WrittenMemory), request, RespLimits.Default, out _, out _));
        Assert.Equal(3, request.Count);
        Assert.Equal("v\u00e4lue", request.GetString(2));
    }

    private static void AssertValue(RespValue value, RespType type, string text)
    {
        Assert.Equal(type, value.Type);
        Assert.Equal(text, value.AsString());
    }
}
