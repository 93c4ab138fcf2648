using Cubby.Text;
using Cubby.Grains;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class IncrementTests
{
    [Fact]
    public void IncrementBy_of_an_absent_key_counts_from_zero_and_creates_it()
    {
        using var host = new SingleGrain();

        Assert.Equal(UpdateStatus.Ok, host.Grain.IncrementBy(SingleGrain.Bytes("n"), 5, out var result));

        Assert.Equal(5, result);
        Assert.Equal("5", host.Get("n"));
        Assert.Equal(-1, host.Ttl("n"));
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
    }

    [Theory]
    [InlineData("10", 1, 11, "11")]
    [InlineData("10", -15, -5, "-5")]
    [InlineData("-5", 5, 0, "0")]
    [InlineData("0", 0, 0, "0")]
    [InlineData("9223372036854775806", 1, long.MaxValue, "9223372036854775807")]
    [InlineData("-9223372036854775807", -1, long.MinValue, "-9223372036854775808")]
    [InlineData("0", long.MinValue, long.MinValue, "-9223372036854775808")]
    public void IncrementBy_adds_and_stores_the_decimal_text(string initial, long delta, long expected, string text)
    {
        using var host = new SingleGrain();
        host.Set("n", initial);

        Assert.Equal(UpdateStatus.Ok, host.Grain.IncrementBy(SingleGrain.Bytes("n"), delta, out var result));

        Assert.Equal(expected, result);
        Assert.Equal(text, host.Get("n"));
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
    }

    [Theory]
    [InlineData("abc")]
    [InlineData("")]
    [InlineData(" 1")]
    [InlineData("1 ")]
    [InlineData("01")]
    [InlineData("+1")]
    [InlineData("1.5")]
    [InlineData("9223372036854775808")]
    public void IncrementBy_of_a_value_that_is_not_an_integer_reports_NotInteger_and_changes_nothing(string initial)
    {
        using var host = new SingleGrain();
        host.Set("n", initial);

        Assert.Equal(UpdateStatus.NotInteger, host.Grain.IncrementBy(SingleGrain.Bytes("n"), 1, out _));

        Assert.Equal(initial, host.Get("n"));
    }

    [Theory]
    [InlineData("9223372036854775807", 1)]
    [InlineData("1", long.MaxValue)]
    [InlineData("-9223372036854775808", -1)]
    [InlineData("-1", long.MinValue)]
    [InlineData("-9223372036854775808", long.MinValue)]
    public void IncrementBy_past_the_64_bit_range_reports_Overflow_and_changes_nothing(string initial, long delta)
    {
        using var host = new SingleGrain();
        host.Set("n", initial);

        Assert.Equal(UpdateStatus.Overflow, host.Grain.IncrementBy(SingleGrain.Bytes("n"), delta, out _));

        Assert.Equal(initial, host.Get("n"));
    }

    [Fact]
    public void IncrementBy_keeps_the_expiry_and_flags()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 1000;
        host.Set("n", "1", new ExpirySpec(deadline), flags: 6);
        host.Advance(400);

        Assert.Equal(UpdateStatus.Ok, host.Grain.IncrementBy(SingleGrain.Bytes("n"), 99, out _));

        var metadata = host.Metadata("n")!.Value;
        Assert.Equal(deadline, metadata.ExpiresAt);
        Assert.Equal(6u, metadata.Flags);
        Assert.Equal("100", host.Get("n"));
        host.Advance(600);
        Assert.Null(host.Get("n"));
    }

    [Fact]
    public void IncrementBy_keeps_a_sliding_expiry_without_renewing_it()
    {
        using var host = new SingleGrain();
        host.Set("n", "1", new ExpirySpec(0, SlidingWindow: 1000));
        host.Advance(700);

        Assert.Equal(UpdateStatus.Ok, host.Grain.IncrementBy(SingleGrain.Bytes("n"), 1, out _));

        Assert.Equal(300, host.Ttl("n"));
        Assert.Equal(1000, host.Metadata("n")!.Value.SlidingWindow);
    }

    [Theory]
    [InlineData("10.5", 0.1, "10.6")]
    [InlineData("10", 0.5, "10.5")]
    [InlineData("3.0e3", 200, "3200")]
    [InlineData("1", -1, "0")]
    [InlineData("-0.25", 0.125, "-0.125")]
    [InlineData("5", 1e20, "100000000000000000005")]
    [InlineData("0.1", 0.2, "0.3")]
    public void IncrementByFloat_adds_and_stores_the_shortest_text_without_exponent(string initial, double delta, string text)
    {
        using var host = new SingleGrain();
        host.Set("f", initial);
        var reply = new byte[RedisNumber.MaxDoubleLength];

        Assert.Equal(UpdateStatus.Ok, host.Grain.IncrementByFloat(SingleGrain.Bytes("f"), delta, reply, out var length));

        Assert.Equal(text, host.Get("f"));
        Assert.Equal(text, System.Text.Encoding.ASCII.GetString(reply, 0, length));
    }

    [Fact]
    public void IncrementByFloat_of_an_absent_key_counts_from_zero()
    {
        using var host = new SingleGrain();

        Assert.Equal(UpdateStatus.Ok, host.Grain.IncrementByFloat(SingleGrain.Bytes("f"), 2.5, new byte[RedisNumber.MaxDoubleLength], out _));

        Assert.Equal("2.5", host.Get("f"));
    }

    [Theory]
    [InlineData("abc")]
    [InlineData("")]
    [InlineData(" 1.5")]
    [InlineData("1.5x")]
    [InlineData("nan")]
    public void IncrementByFloat_of_a_value_that_is_not_a_number_reports_NotFloat(string initial)
    {
        using var host = new SingleGrain();
        host.Set("f", initial);

        Assert.Equal(UpdateStatus.NotFloat, host.Grain.IncrementByFloat(SingleGrain.Bytes("f"), 1, new byte[RedisNumber.MaxDoubleLength], out _));

        Assert.Equal(initial, host.Get("f"));
    }

    [Theory]
    [InlineData("1.7976931348623157e308", 1.7976931348623157e308)]
    [InlineData("-1.7976931348623157e308", -1.7976931348623157e308)]
    [InlineData("inf", 1)]
    [InlineData("1", double.PositiveInfinity)]
    [InlineData("1", double.NaN)]
    public void IncrementByFloat_to_a_result_that_is_not_finite_reports_NotFinite(string initial, double delta)
    {
        using var host = new SingleGrain();
        host.Set("f", initial);

        Assert.Equal(UpdateStatus.NotFinite, host.Grain.IncrementByFloat(SingleGrain.Bytes("f"), delta, new byte[RedisNumber.MaxDoubleLength], out _));

        Assert.Equal(initial, host.Get("f"));
    }

    [Fact]
    public void IncrementByFloat_keeps_the_expiry()
    {
        using var host = new SingleGrain();
        var deadline = host.Now + 1000;
        host.Set("f", "1.5", new ExpirySpec(deadline));

        Assert.Equal(UpdateStatus.Ok, host.Grain.IncrementByFloat(SingleGrain.Bytes("f"), 1, new byte[RedisNumber.MaxDoubleLength], out _));

        Assert.Equal("2.5", host.Get("f"));
        Assert.Equal(deadline, host.Metadata("f")!.Value.ExpiresAt);
    }
}
