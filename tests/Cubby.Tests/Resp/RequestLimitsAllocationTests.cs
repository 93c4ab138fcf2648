using System.Buffers;
using Cubby.Resp;
using static Cubby.Tests.Resp.Sequences;

namespace Cubby.Tests.Resp;

public sealed class RequestLimitsAllocationTests
{
    // Far below a million-slot argument array (4-8 MB) or a 2 GB buffer; room for incidental runtime allocations.
    private const long Small = 4096;

    [Theory]
    [InlineData("*1000000\r\n")]
    [InlineData("*1000000\r\n$3\r\nSET\r\n$1\r\n")]
    [InlineData("*1\r\n$16777216\r\n")]
    [InlineData("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$16000000\r\nabc")]
    public void Declared_sizes_do_not_allocate_before_the_bytes_arrive(string input)
    {
        ReadOnlySequence<byte> buffer = Single(input);
        using var request = new RespRequest();
        RespRequestParser.TryParse(buffer, request, RespLimits.Default, out _, out _); // JIT the path first

        long before = GC.GetAllocatedBytesForCurrentThread();
        RespParseStatus status = RespRequestParser.TryParse(buffer, request, RespLimits.Default, out SequencePosition consumed, out string? error);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(RespParseStatus.Incomplete, status);
        Assert.Null(error);
        Assert.Equal(buffer.Start, consumed);
        Assert.True(allocated < Small, $"allocated {allocated} bytes");
    }

    [Theory]
    [InlineData("*1\r\n$2147483648\r\n", "2147483648")]
    [InlineData("*99999999999\r\n", "99999999999")]
    [InlineData("*1\r\n$-5\r\n", "invalid bulk length")]
    [InlineData("*1\r\n$9223372036854775807\r\n", "9223372036854775807")]
    [InlineData("*1\r\n$99999999999999999999999999999999", "too big bulk count string")]
    public void Huge_or_negative_length_headers_are_rejected_without_allocating(string input, string named)
    {
        ReadOnlySequence<byte> buffer = Single(input);
        using var request = new RespRequest();
        RespRequestParser.TryParse(buffer, request, RespLimits.Default, out _, out _);

        long before = GC.GetAllocatedBytesForCurrentThread();
        RespParseStatus status = RespRequestParser.TryParse(buffer, request, RespLimits.Default, out _, out string? error);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(RespParseStatus.Error, status);
        Assert.Contains(named, error, StringComparison.Ordinal);
        Assert.True(allocated < Small, $"allocated {allocated} bytes");
    }

    [Fact]
    public void A_long_stream_of_header_digits_is_cut_off()
    {
        ReadOnlySequence<byte> buffer = Single("*" + new string('9', 10_000));
        using var request = new RespRequest();

        RespParseStatus status = RespRequestParser.TryParse(buffer, request, RespLimits.Default, out _, out string? error);

        Assert.Equal(RespParseStatus.Error, status);
        Assert.Equal("Protocol error: too big mbulk count string", error);
    }
}
