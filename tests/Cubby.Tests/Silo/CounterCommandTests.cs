using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT over a real socket.</summary>
public sealed class CounterCommandTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private readonly TestSilo _silo = fixture.Silo;

    private static string Key() => SiloClients.UniqueKey("counter");

    [Theory]
    [InlineData("INCR", null, 1)]
    [InlineData("DECR", null, -1)]
    [InlineData("INCRBY", "5", 5)]
    [InlineData("DECRBY", "5", -5)]
    [InlineData("INCRBY", "-7", -7)]
    public async Task An_absent_key_counts_as_0_and_is_created(string command, string? amount, long expected)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        var reply = amount is null ? await c.CallAsync(command, key) : await c.CallAsync(command, key, amount);
        RespAssert.Integer(expected, reply);
        RespAssert.Bulk(expected.ToString(System.Globalization.CultureInfo.InvariantCulture), await c.CallAsync("GET", key));
        RespAssert.Integer(-1, await c.CallAsync("TTL", key));
    }

    [Fact]
    public async Task Increments_and_decrements_add_up_on_an_existing_value()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "10"));
        RespAssert.Integer(11, await c.CallAsync("INCR", key));
        RespAssert.Integer(10, await c.CallAsync("DECR", key));
        RespAssert.Integer(5, await c.CallAsync("INCRBY", key, -5));
        RespAssert.Integer(-5, await c.CallAsync("DECRBY", key, 10));
        RespAssert.Integer(0, await c.CallAsync("INCRBY", key, 5));
        RespAssert.Bulk("0", await c.CallAsync("GET", key));
    }

    [Theory]
    [InlineData("abc")]
    [InlineData("1.5")]
    [InlineData(" 1")]
    [InlineData("1 ")]
    [InlineData("01")]
    [InlineData("+1")]
    [InlineData("-0")]
    [InlineData("")]
    [InlineData("9223372036854775808")]
    [InlineData("1e3")]
    public async Task A_value_that_is_not_a_strict_integer_cannot_be_incremented(string value)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, value));
        foreach (var command in new object[][] { ["INCR", key], ["DECR", key], ["INCRBY", key, 1], ["DECRBY", key, 1] })
        {
            SiloClients.AssertError("ERR value is not an integer or out of range", await c.CallAsync(command));
        }

        RespAssert.Bulk(value, await c.CallAsync("GET", key));
    }

    [Theory]
    [InlineData("INCRBY", "1.5")]
    [InlineData("INCRBY", "abc")]
    [InlineData("DECRBY", "")]
    [InlineData("INCRBY", "9223372036854775808")]
    public async Task A_non_integer_increment_is_rejected(string command, string amount)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        SiloClients.AssertError("ERR value is not an integer or out of range", await c.CallAsync(command, key, amount));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
    }

    [Theory]
    [InlineData("9223372036854775807", "INCR", null)]
    [InlineData("-9223372036854775808", "DECR", null)]
    [InlineData("1", "INCRBY", "9223372036854775807")]
    [InlineData("-2", "INCRBY", "-9223372036854775807")]
    [InlineData("-2", "DECRBY", "9223372036854775807")]
    public async Task An_increment_that_would_overflow_is_rejected_and_leaves_the_value(string value, string command, string? amount)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, value));
        var reply = amount is null ? await c.CallAsync(command, key) : await c.CallAsync(command, key, amount);
        SiloClients.AssertError("ERR increment or decrement would overflow", reply);
        RespAssert.Bulk(value, await c.CallAsync("GET", key));
    }

    [Fact]
    public async Task Increments_may_reach_the_largest_and_smallest_integers_exactly()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "-1"));
        RespAssert.Integer(long.MinValue, await c.CallAsync("DECRBY", key, "9223372036854775807"));
        RespAssert.Ok(await c.CallAsync("SET", key, "1"));
        RespAssert.Integer(long.MaxValue, await c.CallAsync("INCRBY", key, "9223372036854775806"));
    }

    [Fact]
    public async Task Decrby_the_smallest_integer_is_rejected_because_negating_it_overflows()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        SiloClients.AssertError("ERR decrement would overflow", await c.CallAsync("DECRBY", key, "-9223372036854775808"));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
    }

    [Theory]
    [InlineData("10.50", "0.1", "10.6")]
    [InlineData("5.0e3", "2.0e2", "5200")]
    [InlineData("3", "2", "5")]
    [InlineData("10", "-5", "5")]
    [InlineData("1.5", "-1.5", "0")]
    [InlineData("-1", "0.25", "-0.75")]
    [InlineData("0", "0.024390243902439025", "0.02439024390243902")]
    [InlineData("0.02439024390243902", "-0.024390243902439025", "0")]
    [InlineData("0", "1e-20", "0")]
    public async Task Incrbyfloat_adds_and_replies_with_the_number_as_Redis_formats_it(string value, string increment, string expected)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, value));
        var reply = await c.CallAsync("INCRBYFLOAT", key, increment);
        Assert.Equal(RespType.BulkString, reply.Type);
        RespAssert.Bulk(expected, reply);
        RespAssert.Bulk(expected, await c.CallAsync("GET", key));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Incrbyfloat_of_an_absent_key_starts_from_0_and_replies_with_a_bulk_string(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var key = Key();
        var reply = await c.CallAsync("INCRBYFLOAT", key, "1.5");
        Assert.Equal(RespType.BulkString, reply.Type);
        RespAssert.Bulk("1.5", reply);
        RespAssert.Bulk("1.5", await c.CallAsync("GET", key));
    }

    [Theory]
    [InlineData("abc", "1", "ERR value is not a valid float")]
    [InlineData("1", "abc", "ERR value is not a valid float")]
    [InlineData("1", "", "ERR value is not a valid float")]
    [InlineData("1", "nan", "ERR value is not a valid float")]
    [InlineData("1", " 1", "ERR value is not a valid float")]
    [InlineData("1", "inf", "ERR increment would produce NaN or Infinity")]
    public async Task Incrbyfloat_rejects_non_numbers_and_infinite_results_and_leaves_the_value(string value, string increment, string error)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, value));
        SiloClients.AssertError(error, await c.CallAsync("INCRBYFLOAT", key, increment));
        RespAssert.Bulk(value, await c.CallAsync("GET", key));
    }

    [Theory]
    [InlineData("INCR", null, "6")]
    [InlineData("DECR", null, "4")]
    [InlineData("INCRBY", "10", "15")]
    [InlineData("DECRBY", "10", "-5")]
    [InlineData("INCRBYFLOAT", "0.5", "5.5")]
    public async Task Counters_keep_the_expiry(string command, string? amount, string expected)
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "5", "PX", 10_000));
        s.Advance(4000);
        if (amount is null)
        {
            await s.CallAsync(command, "k");
        }
        else
        {
            await s.CallAsync(command, "k", amount);
        }

        RespAssert.Bulk(expected, await s.CallAsync("GET", "k"));
        RespAssert.Integer(6000, await s.CallAsync("PTTL", "k"));
        s.Advance(6000);
        RespAssert.Null(await s.CallAsync("GET", "k"));
    }

    [Fact]
    public async Task Incr_after_the_key_expired_starts_again_from_0()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "41", "PX", 1000));
        s.Advance(1000);
        RespAssert.Integer(1, await s.CallAsync("INCR", "k"));
        RespAssert.Integer(-1, await s.CallAsync("PTTL", "k"));
    }
}
