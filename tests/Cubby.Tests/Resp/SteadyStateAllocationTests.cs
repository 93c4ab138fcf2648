using System.Buffers;
using Cubby.Resp;

namespace Cubby.Tests.Resp;

public sealed class SteadyStateAllocationTests
{
    [Fact]
    public void Parsing_commands_and_writing_replies_allocates_nothing_once_warm()
    {
        var set = new ReadOnlySequence<byte>(Sequences.Bytes("*3\r\n$3\r\nSET\r\n$8\r\nuser:123\r\n$11\r\nhello world\r\n"));
        var get = new ReadOnlySequence<byte>(Sequences.Bytes("*2\r\n$3\r\nGET\r\n$8\r\nuser:123\r\n"));
        var inline = new ReadOnlySequence<byte>(Sequences.Bytes("GET user:123\r\n"));
        ReadOnlySequence<byte> split = Sequences.Split(Sequences.Bytes("*2\r\n$3\r\nGET\r\n$8\r\nuser:123\r\n"), 2, 9, 20);
        byte[] value = new byte[100];
        var output = new ArrayBufferWriter<byte>(4096);
        var writer = new RespWriter(output, RespVersion.Resp2);
        using var request = new RespRequest();
        int parsed = 0;

        void Run()
        {
            foreach (ReadOnlySequence<byte> command in (ReadOnlySpan<ReadOnlySequence<byte>>)[set, get, inline, split])
            {
                // Counted rather than asserted here: xunit's Assert.Equal allocates.
                if (RespRequestParser.TryParse(command, request, RespLimits.Default, out _, out _) == RespParseStatus.Complete)
                {
                    parsed++;
                }
            }

            output.ResetWrittenCount();
            writer.WriteBulkString(value);
            writer.WriteBulkString(request[1]);
            writer.WriteBulkString("text reply");
            writer.WriteOk();
            writer.WriteInteger(12345);
            writer.WriteNull();
            writer.WriteDouble(1.25);
            writer.WriteError("ERR no such key");
        }

        for (int i = 0; i < 100; i++)
        {
            Run();
        }

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 1000; i++)
        {
            Run();
        }

        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
        Assert.Equal(1100 * 4, parsed);
        Assert.True(request.ArgumentEquals(0, "GET"u8));
        // $100 value (108), $8 user:123 (14), $10 text reply (17), +OK (5), :12345 (8), $-1 (5), $4 1.25 (10), -ERR no such key (18).
        Assert.Equal(185, output.WrittenCount);
    }

    [Fact]
    public void Skipping_replies_allocates_nothing_once_warm()
    {
        var reply = new ReadOnlySequence<byte>(Sequences.Bytes("|1\r\n+a\r\n:1\r\n*3\r\n$5\r\nhello\r\n%1\r\n+k\r\n,1.5\r\n~1\r\n#t\r\n"));
        for (int i = 0; i < 100; i++)
        {
            RespReplyReader.TrySkip(reply, RespLimits.Default, out _, out _);
        }

        int complete = 0;
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 1000; i++)
        {
            if (RespReplyReader.TrySkip(reply, RespLimits.Default, out SequencePosition end, out _) == RespParseStatus.Complete && end.Equals(reply.End))
            {
                complete++;
            }
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.Equal(1000, complete);
    }
}
