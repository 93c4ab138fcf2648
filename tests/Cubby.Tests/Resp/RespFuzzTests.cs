using System.Buffers;
using Cubby.Resp;

namespace Cubby.Tests.Resp;

public sealed class RespFuzzTests
{
    private const int Inputs = 5000;

    // Bytes that mean something to the protocol, so random input often gets deep into the parsers.
    private static readonly byte[] ProtocolBytes = "*$:+-_#,(!=%~|>\r\n\r\n0123456789-1 \t\"'\\xtf"u8.ToArray();

    private static readonly string[] ValidInputs =
    [
        "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n",
        "SET k \"a\\x41\" 'b\\'c'\r\n",
        "*2\r\n%1\r\n+k\r\n:1\r\n~2\r\n#t\r\n,1.5\r\n",
        ">3\r\n$7\r\nmessage\r\n(12345678901234567890\r\n=7\r\ntxt:abc\r\n",
        "|1\r\n+ttl\r\n:3\r\n*2\r\n_\r\n!3\r\nERR\r\n",
        "*-1\r\n$-1\r\n-ERR x\r\n",
    ];

    [Fact]
    public void Random_bytes_never_throw_or_hang()
    {
        var random = new Random(20240611);
        for (int i = 0; i < Inputs; i++)
        {
            var data = new byte[random.Next(0, 80)];
            for (int j = 0; j < data.Length; j++)
            {
                data[j] = random.Next(4) == 0 ? (byte)random.Next(256) : ProtocolBytes[random.Next(ProtocolBytes.Length)];
            }

            Exercise(data, random);
        }
    }

    [Fact]
    public void Mutated_valid_input_never_throws_or_hangs()
    {
        var random = new Random(77);
        for (int i = 0; i < Inputs; i++)
        {
            List<byte> data = [.. Sequences.Bytes(ValidInputs[random.Next(ValidInputs.Length)])];
            int mutations = random.Next(1, 4);
            for (int m = 0; m < mutations && data.Count > 0; m++)
            {
                int at = random.Next(data.Count);
                switch (random.Next(3))
                {
                    case 0:
                        data[at] = ProtocolBytes[random.Next(ProtocolBytes.Length)];
                        break;
                    case 1:
                        data.RemoveAt(at);
                        break;
                    default:
                        data.Insert(at, (byte)random.Next(256));
                        break;
                }
            }

            Exercise([.. data], random);
        }
    }

    private static void Exercise(byte[] data, Random random)
    {
        var limits = new RespLimits { MaxNestingDepth = 4, MaxArrayLength = 1000, MaxBulkBytes = 1000 };
        ReadOnlySequence<byte> whole = new(data);
        ReadOnlySequence<byte> split = data.Length == 0 ? whole : Sequences.Split(data, random.Next(data.Length));

        ParseRequests(whole, limits);
        ParseRequests(split, limits);
        ReadReplies(whole, limits);
        ReadReplies(split, limits);
    }

    private static void ParseRequests(ReadOnlySequence<byte> buffer, RespLimits limits)
    {
        using var request = new RespRequest();
        long length = buffer.Length;
        for (int guard = 0; guard <= length; guard++)
        {
            RespParseStatus status = RespRequestParser.TryParse(buffer, request, limits, out SequencePosition consumed, out string? error);
            Assert.True(Enum.IsDefined(status));
            Assert.Equal(status == RespParseStatus.Error, error is not null);
            if (status != RespParseStatus.Complete)
            {
                return;
            }

            Assert.True(request.Count > 0);
            ReadOnlySequence<byte> rest = buffer.Slice(consumed);
            Assert.True(rest.Length < buffer.Length, "a complete command consumes bytes");
            buffer = rest;
        }

        Assert.Fail("the parser kept returning Complete");
    }

    private static void ReadReplies(ReadOnlySequence<byte> buffer, RespLimits limits)
    {
        long length = buffer.Length;
        for (int guard = 0; guard <= length; guard++)
        {
            RespParseStatus skipped = RespReplyReader.TrySkip(buffer, limits, out SequencePosition end, out string? skipError);
            RespParseStatus read = RespReplyReader.TryRead(buffer, limits, out RespValue? value, out SequencePosition consumed, out string? readError);

            Assert.Equal(skipped, read);
            Assert.Equal(skipError, readError);
            Assert.Equal(read == RespParseStatus.Complete, value is not null);
            Assert.Equal(read == RespParseStatus.Error, readError is not null);
            if (read != RespParseStatus.Complete)
            {
                return;
            }

            Assert.Equal(end, consumed);
            _ = value!.ToString();
            ReadOnlySequence<byte> rest = buffer.Slice(consumed);
            Assert.True(rest.Length < buffer.Length, "a complete reply consumes bytes");
            buffer = rest;
        }

        Assert.Fail("the reader kept returning Complete");
    }
}
