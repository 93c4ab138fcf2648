using Cubby.Resp;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Silo;

/// <summary>GETBIT, SETBIT, BITCOUNT and BITPOS against Redis 7's replies (each checked against a real redis-server 7.0).</summary>
public sealed class BitCommandTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private static string Key() => SiloClients.UniqueKey("bits");

    [Theory]
    [InlineData(new string[0], 26)]
    [InlineData(new[] { "0", "0" }, 4)]
    [InlineData(new[] { "1", "1" }, 6)]
    [InlineData(new[] { "1", "1", "BYTE" }, 6)]
    [InlineData(new[] { "5", "30", "BIT" }, 17)]
    [InlineData(new[] { "-100", "-100" }, 4)]
    [InlineData(new[] { "-1", "-2" }, 0)]
    [InlineData(new[] { "2", "-1" }, 16)]
    public async Task Bitcount_counts_set_bits_in_byte_or_bit_ranges(string[] range, long expected)
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "foobar"));

        RespAssert.Integer(expected, await c.CallAsync(["BITCOUNT", key, .. range]));
    }

    [Fact]
    public async Task Bitcount_of_a_missing_key_is_0_and_bad_ranges_are_syntax_errors()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var key = Key();

        RespAssert.Integer(0, await c.CallAsync("BITCOUNT", key));
        RespAssert.Integer(0, await c.CallAsync("BITCOUNT", key, "0", "10"));
        RespAssert.Error("ERR syntax error", await c.CallAsync("BITCOUNT", key, "0"));
        RespAssert.Error("ERR syntax error", await c.CallAsync("BITCOUNT", key, "0", "1", "WORD"));
    }

    [Theory]
    [InlineData(new[] { "0" }, 12)]
    [InlineData(new[] { "1" }, 0)]
    [InlineData(new[] { "0", "1" }, 12)]
    [InlineData(new[] { "1", "2" }, -1)]
    [InlineData(new[] { "1", "2", "-1", "BYTE" }, -1)]
    [InlineData(new[] { "0", "7", "15", "BIT" }, 12)]
    [InlineData(new[] { "0", "-1" }, 16)]
    public async Task Bitpos_finds_the_first_bit_of_a_value(string[] arguments, long expected)
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var key = Key();
        await c.CallAsync("SETRANGE", key, "0", new byte[] { 0xFF, 0xF0, 0x00 });

        RespAssert.Integer(expected, await c.CallAsync(["BITPOS", key, .. arguments]));
    }

    [Fact]
    public async Task Bitpos_for_a_clear_bit_in_all_ones_looks_past_the_end_only_without_an_end()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var key = Key();
        await c.CallAsync("SETRANGE", key, "0", new byte[] { 0xFF, 0xFF, 0xFF });

        RespAssert.Integer(24, await c.CallAsync("BITPOS", key, "0"));
        RespAssert.Integer(24, await c.CallAsync("BITPOS", key, "0", "1"));
        RespAssert.Integer(-1, await c.CallAsync("BITPOS", key, "0", "0", "-1"));
        RespAssert.Integer(0, await c.CallAsync("BITPOS", Key(), "0"));
        RespAssert.Integer(-1, await c.CallAsync("BITPOS", Key(), "1"));
        RespAssert.Error("ERR The bit argument must be 1 or 0.", await c.CallAsync("BITPOS", key, "2"));
        RespAssert.Error("ERR value is not an integer or out of range", await c.CallAsync("BITPOS", key, "x"));
    }

    [Fact]
    public async Task Setbit_answers_the_old_bit_and_grows_the_value_with_zeros_getbit_reads_any_offset()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var key = Key();

        RespAssert.Integer(0, await c.CallAsync("SETBIT", key, "7", "1"));
        RespAssert.Bulk("\u0001", await c.CallAsync("GET", key));
        RespAssert.Integer(1, await c.CallAsync("SETBIT", key, "7", "0"));
        RespAssert.Integer(0, await c.CallAsync("SETBIT", key, "100", "1"));
        RespAssert.Integer(13, await c.CallAsync("STRLEN", key));
        RespAssert.Integer(1, await c.CallAsync("GETBIT", key, "100"));
        RespAssert.Integer(0, await c.CallAsync("GETBIT", key, "101"));
        RespAssert.Integer(0, await c.CallAsync("GETBIT", key, "100000"));
        RespAssert.Integer(0, await c.CallAsync("GETBIT", Key(), "3"));
    }

    [Theory]
    [InlineData("SETBIT", "-1", "1", "ERR bit offset is not an integer or out of range")]
    [InlineData("SETBIT", "4294967296", "1", "ERR bit offset is not an integer or out of range")]
    [InlineData("SETBIT", "1", "2", "ERR bit is not an integer or out of range")]
    [InlineData("SETBIT", "1", "x", "ERR bit is not an integer or out of range")]
    [InlineData("GETBIT", "-1", null, "ERR bit offset is not an integer or out of range")]
    [InlineData("GETBIT", "x", null, "ERR bit offset is not an integer or out of range")]
    public async Task Bad_offsets_and_bits_are_refused_with_redis_text(string command, string offset, string? bit, string error)
    {
        await using var c = await fixture.Silo.ConnectAsync();

        RespAssert.Error(error, await c.CallAsync(bit is null ? [command, Key(), offset] : [command, Key(), offset, bit]));
    }

    [Fact]
    public async Task Bit_commands_on_a_hash_are_wrongtype()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var key = Key();
        RespAssert.Integer(1, await c.CallAsync("HSET", key, "f", "v"));

        foreach (var command in new[] { new object[] { "GETBIT", key, "0" }, ["SETBIT", key, "0", "1"], ["BITCOUNT", key], ["BITPOS", key, "1"] })
        {
            RespAssert.Error("WRONGTYPE Operation against a key holding the wrong kind of value", await c.CallAsync(command));
        }
    }

    [Fact]
    public async Task Setbit_past_the_value_limit_is_refused_naming_it()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var limit = fixture.Silo.Services.GetRequiredService<Microsoft.Extensions.Options.IOptions<Cubby.Silo.Hosting.SiloOptions>>().Value.MaxValueBytes;

        RespAssert.Error("ERR string exceeds maximum allowed size", await c.CallAsync("SETBIT", Key(), (8L * limit).ToString(System.Globalization.CultureInfo.InvariantCulture), "1"));
    }
}
