using System.Globalization;
using System.Text;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>GET, SET and the other string commands over a real socket, against Redis 7's replies.</summary>
public sealed class StringCommandTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private readonly TestSilo _silo = fixture.Silo;

    private static string Key() => SiloClients.UniqueKey("str");

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Get_of_a_missing_key_is_null(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        SiloClients.AssertNull(await c.CallAsync("GET", Key()), protocol);
    }

    [Fact]
    public async Task Set_stores_a_value_that_get_returns_and_a_second_set_replaces_it()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "one"));
        RespAssert.Bulk("one", await c.CallAsync("GET", key));
        RespAssert.Ok(await c.CallAsync("SET", key, "two"));
        RespAssert.Bulk("two", await c.CallAsync("GET", key));
    }

    [Fact]
    public async Task An_empty_value_is_stored_and_read_back_as_an_empty_string_not_null()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, ""));
        RespAssert.Bulk("", await c.CallAsync("GET", key));
        RespAssert.Integer(1, await c.CallAsync("EXISTS", key));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Set_NX_writes_only_a_key_that_is_absent(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "first", "NX"));
        SiloClients.AssertNull(await c.CallAsync("SET", key, "second", "nx"), protocol);
        RespAssert.Bulk("first", await c.CallAsync("GET", key));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Set_XX_writes_only_a_key_that_exists(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var key = Key();
        SiloClients.AssertNull(await c.CallAsync("SET", key, "first", "XX"), protocol);
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
        RespAssert.Ok(await c.CallAsync("SET", key, "first"));
        RespAssert.Ok(await c.CallAsync("SET", key, "second", "xx"));
        RespAssert.Bulk("second", await c.CallAsync("GET", key));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Set_GET_replies_with_the_previous_value_and_writes(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var key = Key();
        SiloClients.AssertNull(await c.CallAsync("SET", key, "first", "GET"), protocol);
        RespAssert.Bulk("first", await c.CallAsync("GET", key));
        RespAssert.Bulk("first", await c.CallAsync("SET", key, "second", "get"));
        RespAssert.Bulk("second", await c.CallAsync("GET", key));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Set_NX_GET_replies_with_the_previous_value_and_writes_only_when_absent(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var key = Key();
        SiloClients.AssertNull(await c.CallAsync("SET", key, "first", "NX", "GET"), protocol);
        RespAssert.Bulk("first", await c.CallAsync("GET", key));
        RespAssert.Bulk("first", await c.CallAsync("SET", key, "second", "GET", "NX"));
        RespAssert.Bulk("first", await c.CallAsync("GET", key));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Set_XX_GET_replies_with_the_previous_value_and_writes_only_when_present(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var key = Key();
        SiloClients.AssertNull(await c.CallAsync("SET", key, "first", "XX", "GET"), protocol);
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
        RespAssert.Ok(await c.CallAsync("SET", key, "first"));
        RespAssert.Bulk("first", await c.CallAsync("SET", key, "second", "XX", "GET"));
        RespAssert.Bulk("second", await c.CallAsync("GET", key));
    }

    [Theory]
    [InlineData("EX", 10_000)]
    [InlineData("ex", 3_000)]
    [InlineData("PX", 1_500)]
    [InlineData("EXAT", 20_000)]
    [InlineData("PXAT", 2_500)]
    public async Task Set_with_an_expiry_option_expires_the_key_at_that_moment(string option, long milliseconds)
    {
        await using var s = await ClockedSilo.StartAsync();
        var argument = ExpiryArgument(s, option, milliseconds);
        RespAssert.Ok(await s.CallAsync("SET", "k", "v", option, argument));
        RespAssert.Integer(milliseconds, await s.CallAsync("PTTL", "k"));
        s.Advance(milliseconds - 1);
        RespAssert.Bulk("v", await s.CallAsync("GET", "k"));
        s.Advance(1);
        RespAssert.Null(await s.CallAsync("GET", "k"));
        RespAssert.Integer(-2, await s.CallAsync("PTTL", "k"));
    }

    [Fact]
    public async Task Set_KEEPTTL_keeps_the_expiry_and_a_plain_set_removes_it()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "one", "PX", 5000));
        s.Advance(1000);
        RespAssert.Ok(await s.CallAsync("SET", "k", "two", "KEEPTTL"));
        RespAssert.Bulk("two", await s.CallAsync("GET", "k"));
        RespAssert.Integer(4000, await s.CallAsync("PTTL", "k"));
        RespAssert.Ok(await s.CallAsync("SET", "k", "three"));
        RespAssert.Integer(-1, await s.CallAsync("PTTL", "k"));
    }

    [Fact]
    public async Task Set_KEEPTTL_on_an_absent_key_creates_it_without_expiry()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "v", "KEEPTTL"));
        RespAssert.Integer(-1, await c.CallAsync("TTL", key));
    }

    [Fact]
    public async Task Set_combines_XX_GET_and_KEEPTTL()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "one", "PX", 5000));
        RespAssert.Bulk("one", await s.CallAsync("SET", "k", "two", "XX", "GET", "KEEPTTL"));
        RespAssert.Bulk("two", await s.CallAsync("GET", "k"));
        RespAssert.Integer(5000, await s.CallAsync("PTTL", "k"));
    }

    [Fact]
    public async Task Set_NX_with_an_expiry_leaves_an_existing_key_and_its_expiry_alone()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "one", "NX", "EX", 10));
        RespAssert.Null(await s.CallAsync("SET", "k", "two", "EX", 20, "NX"));
        RespAssert.Bulk("one", await s.CallAsync("GET", "k"));
        RespAssert.Integer(10_000, await s.CallAsync("PTTL", "k"));
    }

    [Theory]
    [InlineData("NX XX")]
    [InlineData("XX NX")]
    [InlineData("NX GET XX")]
    [InlineData("EX 10 PX 100")]
    [InlineData("PX 100 EX 10")]
    [InlineData("EX 10 EXAT 2000000000")]
    [InlineData("PXAT 2000000000000 PX 5")]
    [InlineData("EXAT 2000000000 PXAT 2000000000000")]
    [InlineData("EX 10 KEEPTTL")]
    [InlineData("KEEPTTL EX 10")]
    [InlineData("KEEPTTL PXAT 2000000000000")]
    [InlineData("EX")]
    [InlineData("PX")]
    [InlineData("EX 10 EX")]
    [InlineData("PERSIST")]
    [InlineData("BOGUS")]
    [InlineData("NXX")]
    public async Task Set_with_conflicting_or_unknown_options_is_a_syntax_error_and_writes_nothing(string options)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        SiloClients.AssertError("ERR syntax error", await c.CallAsync(["SET", key, "v", .. SiloClients.Words(options)]));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
    }

    [Theory]
    [InlineData("NX NX", "OK")]
    [InlineData("GET GET", null)]
    [InlineData("KEEPTTL KEEPTTL", "OK")]
    [InlineData("EX 100 EX 100", "OK")]
    [InlineData("PX 100000 PX 100000", "OK")]
    public async Task Set_accepts_a_repeated_option_as_Redis_does(string options, string? reply)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        var result = await c.CallAsync(["SET", key, "v", .. SiloClients.Words(options)]);
        if (reply is null)
        {
            RespAssert.Null(result);
        }
        else
        {
            RespAssert.SimpleString(reply, result);
        }

        RespAssert.Bulk("v", await c.CallAsync("GET", key));
    }

    [Theory]
    [InlineData("EX 0 NX XX")]
    [InlineData("EX abc BOGUS")]
    [InlineData("PX -1 KEEPTTL")]
    public async Task Set_reports_a_syntax_error_before_checking_the_expire_time(string options)
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError("ERR syntax error", await c.CallAsync(["SET", Key(), "v", .. SiloClients.Words(options)]));
    }

    [Theory]
    [InlineData("EX 0")]
    [InlineData("EX -1")]
    [InlineData("PX 0")]
    [InlineData("PX -100")]
    [InlineData("EXAT 0")]
    [InlineData("EXAT -1")]
    [InlineData("PXAT 0")]
    [InlineData("PXAT -5")]
    [InlineData("EX 9223372036854775807")]
    [InlineData("EX 9223372036854775")]
    [InlineData("PX 9223372036854775807")]
    [InlineData("EXAT 9223372036854775807")]
    public async Task Set_with_a_zero_negative_or_overflowing_expire_time_is_rejected(string options)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        SiloClients.AssertError("ERR invalid expire time in 'set' command", await c.CallAsync(["SET", key, "v", .. SiloClients.Words(options)]));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
    }

    [Theory]
    [InlineData("EX abc")]
    [InlineData("PX 1.5")]
    [InlineData("EXAT 1e3")]
    [InlineData("PX 99999999999999999999")]
    [InlineData("EX +10")]
    public async Task Set_with_a_non_integer_expire_time_is_rejected(string options)
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError("ERR value is not an integer or out of range", await c.CallAsync(["SET", Key(), "v", .. SiloClients.Words(options)]));
    }

    [Fact]
    public async Task Set_with_an_absolute_expiry_in_the_past_leaves_no_key()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "one"));
        RespAssert.Bulk("one", await s.CallAsync("SET", "k", "two", "EXAT", 1, "GET"));
        RespAssert.Integer(0, await s.CallAsync("EXISTS", "k"));
        RespAssert.Ok(await s.CallAsync("SET", "other", "v", "PXAT", s.NowMs - 1));
        RespAssert.Null(await s.CallAsync("GET", "other"));
    }

    [Fact]
    public async Task Setnx_writes_only_an_absent_key_and_replies_1_or_0()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Integer(1, await c.CallAsync("SETNX", key, "first"));
        RespAssert.Integer(0, await c.CallAsync("SETNX", key, "second"));
        RespAssert.Bulk("first", await c.CallAsync("GET", key));
    }

    [Fact]
    public async Task Setex_and_psetex_write_with_an_expiry_and_replace_an_existing_value()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "old"));
        RespAssert.Ok(await s.CallAsync("SETEX", "k", 10, "new"));
        RespAssert.Bulk("new", await s.CallAsync("GET", "k"));
        RespAssert.Integer(10_000, await s.CallAsync("PTTL", "k"));
        RespAssert.Ok(await s.CallAsync("PSETEX", "p", 1500, "v"));
        RespAssert.Integer(1500, await s.CallAsync("PTTL", "p"));
        s.Advance(1500);
        RespAssert.Null(await s.CallAsync("GET", "p"));
        RespAssert.Bulk("new", await s.CallAsync("GET", "k"));
    }

    [Theory]
    [InlineData("SETEX", "0", "ERR invalid expire time in 'setex' command")]
    [InlineData("SETEX", "-1", "ERR invalid expire time in 'setex' command")]
    [InlineData("SETEX", "9223372036854775807", "ERR invalid expire time in 'setex' command")]
    [InlineData("PSETEX", "0", "ERR invalid expire time in 'psetex' command")]
    [InlineData("PSETEX", "-10", "ERR invalid expire time in 'psetex' command")]
    [InlineData("SETEX", "ten", "ERR value is not an integer or out of range")]
    [InlineData("PSETEX", "1.5", "ERR value is not an integer or out of range")]
    public async Task Setex_and_psetex_reject_a_bad_expire_time(string command, string time, string error)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        SiloClients.AssertError(error, await c.CallAsync(command, key, time, "v"));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
    }

    [Fact]
    public async Task Getex_without_options_reads_and_leaves_the_expiry()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v", "PX", 5000));
        s.Advance(1000);
        RespAssert.Bulk("v", await s.CallAsync("GETEX", "k"));
        RespAssert.Integer(4000, await s.CallAsync("PTTL", "k"));
    }

    [Theory]
    [InlineData("EX", 10_000)]
    [InlineData("PX", 1_500)]
    [InlineData("EXAT", 20_000)]
    [InlineData("pxat", 2_500)]
    public async Task Getex_with_an_expiry_option_reads_and_sets_the_expiry(string option, long milliseconds)
    {
        await using var s = await ClockedSilo.StartAsync();
        var argument = ExpiryArgument(s, option, milliseconds);
        RespAssert.Ok(await s.CallAsync("SET", "k", "v"));
        RespAssert.Bulk("v", await s.CallAsync("GETEX", "k", option, argument));
        RespAssert.Integer(milliseconds, await s.CallAsync("PTTL", "k"));
        s.Advance(milliseconds);
        RespAssert.Null(await s.CallAsync("GET", "k"));
    }

    [Fact]
    public async Task Getex_PERSIST_reads_and_removes_the_expiry()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v", "PX", 5000));
        RespAssert.Bulk("v", await s.CallAsync("GETEX", "k", "PERSIST"));
        RespAssert.Integer(-1, await s.CallAsync("PTTL", "k"));
        s.Advance(10_000);
        RespAssert.Bulk("v", await s.CallAsync("GET", "k"));
    }

    [Fact]
    public async Task Getex_with_an_absolute_time_in_the_past_replies_with_the_value_and_deletes_the_key()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v"));
        RespAssert.Bulk("v", await s.CallAsync("GETEX", "k", "PXAT", 1));
        RespAssert.Integer(0, await s.CallAsync("EXISTS", "k"));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Getex_of_a_missing_key_is_null(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        SiloClients.AssertNull(await c.CallAsync("GETEX", Key(), "EX", 10), protocol);
    }

    [Theory]
    [InlineData("BOGUS")]
    [InlineData("PERSIST EX 10")]
    [InlineData("EX 10 PERSIST")]
    [InlineData("EX 10 PX 100")]
    [InlineData("EX")]
    [InlineData("KEEPTTL")]
    [InlineData("NX")]
    [InlineData("GET")]
    public async Task Getex_with_conflicting_or_unknown_options_is_a_syntax_error(string options)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "v"));
        SiloClients.AssertError("ERR syntax error", await c.CallAsync(["GETEX", key, .. SiloClients.Words(options)]));
        RespAssert.Integer(-1, await c.CallAsync("TTL", key));
    }

    [Theory]
    [InlineData("EX 0", "ERR invalid expire time in 'getex' command")]
    [InlineData("PX -1", "ERR invalid expire time in 'getex' command")]
    [InlineData("EXAT 0", "ERR invalid expire time in 'getex' command")]
    [InlineData("EX 9223372036854775807", "ERR invalid expire time in 'getex' command")]
    [InlineData("EX abc", "ERR value is not an integer or out of range")]
    public async Task Getex_rejects_a_bad_expire_time(string options, string error)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "v"));
        SiloClients.AssertError(error, await c.CallAsync(["GETEX", key, .. SiloClients.Words(options)]));
        RespAssert.Integer(-1, await c.CallAsync("TTL", key));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Getset_answers_the_old_value_stores_the_new_one_and_drops_the_expiry(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var key = Key();
        SiloClients.AssertNull(await c.CallAsync("GETSET", key, "first"), protocol);
        RespAssert.Ok(await c.CallAsync("SET", key, "second", "EX", "100"));

        RespAssert.Bulk("second", await c.CallAsync("GETSET", key, "third"));

        RespAssert.Bulk("third", await c.CallAsync("GET", key));
        RespAssert.Integer(-1, await c.CallAsync("TTL", key));
        RespAssert.Error("ERR wrong number of arguments for 'getset' command", await c.CallAsync("GETSET", key));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Getdel_replies_with_the_value_and_removes_the_key(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "v"));
        RespAssert.Bulk("v", await c.CallAsync("GETDEL", key));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
        SiloClients.AssertNull(await c.CallAsync("GETDEL", key), protocol);
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Mget_replies_with_every_value_in_order_and_null_for_missing_keys(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        string a = Key(), b = Key(), missing = Key();
        RespAssert.Ok(await c.CallAsync("MSET", a, "va", b, "vb"));
        var reply = await c.CallAsync("MGET", a, missing, b, a);
        Assert.Equal(RespType.Array, reply.Type);
        Assert.Equal(4, reply.Items.Count);
        RespAssert.Bulk("va", reply.Items[0]);
        SiloClients.AssertNull(reply.Items[1], protocol);
        RespAssert.Bulk("vb", reply.Items[2]);
        RespAssert.Bulk("va", reply.Items[3]);
    }

    [Fact]
    public async Task Mset_writes_every_pair_and_removes_existing_expiries()
    {
        await using var c = await _silo.ConnectAsync();
        string a = Key(), b = Key();
        RespAssert.Ok(await c.CallAsync("SET", a, "old", "EX", 100));
        RespAssert.Ok(await c.CallAsync("MSET", a, "1", b, "2"));
        Assert.Equal(["1", "2"], RespAssert.Strings(await c.CallAsync("MGET", a, b)));
        RespAssert.Integer(-1, await c.CallAsync("TTL", a));
    }

    [Theory]
    [InlineData("MSET")]
    [InlineData("MSETNX")]
    public async Task Mset_and_msetnx_with_an_odd_number_of_arguments_write_nothing(string command)
    {
        await using var c = await _silo.ConnectAsync();
        string a = Key(), b = Key();
        SiloClients.AssertError($"ERR wrong number of arguments for '{command.ToLowerInvariant()}' command", await c.CallAsync(command, a, "1", b));
        SiloClients.AssertError($"ERR wrong number of arguments for '{command.ToLowerInvariant()}' command", await c.CallAsync(command, a));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", a, b));
    }

    [Fact]
    public async Task Msetnx_writes_all_keys_or_none_across_slots()
    {
        await using var c = await _silo.ConnectAsync();
        var keys = KeysInDistinctSlots(5);
        RespAssert.Integer(1, await c.CallAsync("MSETNX", keys[0], "a", keys[1], "b"));
        Assert.Equal(["a", "b"], RespAssert.Strings(await c.CallAsync("MGET", keys[0], keys[1])));

        // The existing key comes last, so a non-atomic implementation would already have written the others.
        RespAssert.Integer(0, await c.CallAsync("MSETNX", keys[2], "x", keys[3], "y", keys[1], "z"));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", keys[2], keys[3]));
        RespAssert.Bulk("b", await c.CallAsync("GET", keys[1]));

        RespAssert.Integer(1, await c.CallAsync("MSETNX", keys[4], "first", keys[4], "second"));
        RespAssert.Bulk("second", await c.CallAsync("GET", keys[4]));
    }

    [Fact]
    public async Task Append_creates_or_extends_the_value_and_keeps_the_expiry()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Integer(5, await c.CallAsync("APPEND", key, "Hello"));
        RespAssert.Integer(11, await c.CallAsync("APPEND", key, " World"));
        RespAssert.Bulk("Hello World", await c.CallAsync("GET", key));
        RespAssert.Integer(1, await c.CallAsync("EXPIRE", key, 100));
        RespAssert.Integer(12, await c.CallAsync("APPEND", key, "!"));
        Assert.InRange((await c.CallAsync("TTL", key)).Integer, 99, 100);
    }

    [Fact]
    public async Task Strlen_is_the_byte_length_and_0_for_a_missing_key()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Integer(0, await c.CallAsync("STRLEN", key));
        RespAssert.Ok(await c.CallAsync("SET", key, "Hello world"));
        RespAssert.Integer(11, await c.CallAsync("STRLEN", key));
        RespAssert.Ok(await c.CallAsync("SET", key, "é\0x"u8.ToArray()));
        RespAssert.Integer(4, await c.CallAsync("STRLEN", key));
    }

    [Theory]
    [InlineData(0, 3, "This")]
    [InlineData(-3, -1, "ing")]
    [InlineData(0, -1, "This is a string")]
    [InlineData(10, 100, "string")]
    [InlineData(100, 200, "")]
    [InlineData(5, 2, "")]
    [InlineData(-100, 3, "This")]
    [InlineData(-1, -5, "")]
    [InlineData(0, -100, "T")]
    [InlineData(-20, -17, "T")]
    [InlineData(-100, -200, "")]
    [InlineData(-17, -18, "")]
    [InlineData(15, 15, "g")]
    public async Task Getrange_follows_Redis_index_rules(long start, long end, string expected)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "This is a string"));
        RespAssert.Bulk(expected, await c.CallAsync("GETRANGE", key, start, end));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Getrange_of_a_missing_key_or_an_empty_value_is_an_empty_string(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var key = Key();
        RespAssert.Bulk("", await c.CallAsync("GETRANGE", key, 0, -1));
        RespAssert.Ok(await c.CallAsync("SET", key, ""));
        RespAssert.Bulk("", await c.CallAsync("GETRANGE", key, 0, -1));
    }

    [Theory]
    [InlineData("a", "1")]
    [InlineData("0", "1.5")]
    public async Task Getrange_with_a_non_integer_index_is_rejected(string start, string end)
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError("ERR value is not an integer or out of range", await c.CallAsync("GETRANGE", Key(), start, end));
    }

    [Fact]
    public async Task Setrange_overwrites_part_of_a_value()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "Hello World"));
        RespAssert.Integer(11, await c.CallAsync("SETRANGE", key, 6, "Redis"));
        RespAssert.Bulk("Hello Redis", await c.CallAsync("GET", key));
    }

    [Fact]
    public async Task Setrange_pads_with_zero_bytes_past_the_end_of_the_value_or_of_a_missing_key()
    {
        await using var c = await _silo.ConnectAsync();
        string missing = Key(), shorter = Key();
        RespAssert.Integer(6, await c.CallAsync("SETRANGE", missing, 5, "x"));
        Assert.Equal("\0\0\0\0\0x"u8.ToArray(), (await c.CallAsync("GET", missing)).Bytes.ToArray());
        RespAssert.Ok(await c.CallAsync("SET", shorter, "ab"));
        RespAssert.Integer(6, await c.CallAsync("SETRANGE", shorter, 4, "cd"));
        Assert.Equal("ab\0\0cd"u8.ToArray(), (await c.CallAsync("GET", shorter)).Bytes.ToArray());
    }

    [Fact]
    public async Task Setrange_with_an_empty_value_changes_nothing_and_replies_with_the_length()
    {
        await using var c = await _silo.ConnectAsync();
        string missing = Key(), existing = Key();
        RespAssert.Integer(0, await c.CallAsync("SETRANGE", missing, 3, ""));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", missing));
        RespAssert.Ok(await c.CallAsync("SET", existing, "abc"));
        RespAssert.Integer(3, await c.CallAsync("SETRANGE", existing, 10, ""));
        RespAssert.Bulk("abc", await c.CallAsync("GET", existing));
    }

    [Fact]
    public async Task Setrange_keeps_the_expiry()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "abc", "EX", 100));
        RespAssert.Integer(3, await c.CallAsync("SETRANGE", key, 0, "x"));
        Assert.InRange((await c.CallAsync("TTL", key)).Integer, 99, 100);
    }

    [Theory]
    [InlineData("-1", "ERR offset is out of range")]
    [InlineData("-9223372036854775808", "ERR offset is out of range")]
    [InlineData("one", "ERR value is not an integer or out of range")]
    [InlineData("536870912", "ERR string exceeds maximum allowed size")]
    [InlineData("9223372036854775807", "ERR string exceeds maximum allowed size")]
    [InlineData("9223372036854775806", "ERR string exceeds maximum allowed size")]
    public async Task Setrange_rejects_a_bad_offset_and_writes_nothing(string offset, string errorPrefix)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Error(errorPrefix, await c.CallAsync("SETRANGE", key, offset, "xy"));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
    }

    [Fact]
    public async Task Setrange_and_append_cannot_grow_a_value_past_MaxValueBytes()
    {
        await using var silo = await TestSilo.StartAsync(o => o.MaxValueBytes = 1024);
        await using var c = await silo.ConnectAsync();
        RespAssert.Integer(1024, await c.CallAsync("SETRANGE", "full", 1016, "abcdefgh"));
        RespAssert.Error("ERR string exceeds maximum allowed size", await c.CallAsync("SETRANGE", "over", 1017, "abcdefgh"));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", "over"));
        RespAssert.Error("ERR string exceeds maximum allowed size", await c.CallAsync("APPEND", "full", "x"));
        RespAssert.Integer(1024, await c.CallAsync("STRLEN", "full"));

        // Redis checks the size only when there is something to write.
        RespAssert.Integer(0, await c.CallAsync("SETRANGE", "nothing", 5000, ""));
        RespAssert.Integer(1024, await c.CallAsync("SETRANGE", "full", 5000, ""));
    }

    [Fact]
    public async Task A_value_over_MaxValueBytes_is_a_protocol_error_that_closes_only_that_connection()
    {
        await using var silo = await TestSilo.StartAsync(o => o.MaxValueBytes = 1024);
        await using var c = await silo.ConnectAsync();
        RespAssert.Error("ERR Protocol error", await c.CallAsync("SET", "k", new byte[2000]));
        Assert.True(await c.IsClosedByServerAsync());
        await using var other = await silo.ConnectAsync();
        RespAssert.Integer(0, await other.CallAsync("EXISTS", "k"));
    }

    [Fact]
    public async Task Values_and_keys_are_binary_safe_for_all_256_byte_values()
    {
        await using var c = await _silo.ConnectAsync();
        var value = Enumerable.Range(0, 256).Select(i => (byte)i).ToArray();
        var key = Encoding.UTF8.GetBytes(Key()).Concat(value).ToArray();
        RespAssert.Ok(await c.CallAsync("SET", key, value));
        Assert.Equal(value, (await c.CallAsync("GET", key)).Bytes.ToArray());
        RespAssert.Integer(256, await c.CallAsync("STRLEN", key));
        Assert.Equal(value[250..], (await c.CallAsync("GETRANGE", key, 250, 255)).Bytes.ToArray());
        Assert.Equal(value, (await c.CallAsync("MGET", key)).Items[0].Bytes.ToArray());
        RespAssert.Integer(512, await c.CallAsync("APPEND", key, value));
        Assert.Equal(value.Concat(value).ToArray(), (await c.CallAsync("GETDEL", key)).Bytes.ToArray());
    }

    [Fact]
    public async Task Values_and_keys_with_embedded_CRLF_round_trip()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key() + "\r\nsecond line";
        const string Value = "line one\r\nline two\r\n\r\n$5\r\n*1\r\n";
        RespAssert.Ok(await c.CallAsync("SET", key, Value));
        RespAssert.Bulk(Value, await c.CallAsync("GET", key));
        RespAssert.Integer(Encoding.UTF8.GetByteCount(Value), await c.CallAsync("STRLEN", key));
        RespAssert.Bulk("ine two\r\n", await c.CallAsync("GETRANGE", key, 11, 19));
    }

    private static string[] KeysInDistinctSlots(int count)
    {
        var map = new ShardMap();
        var keys = new List<string>();
        var slots = new HashSet<int>();
        while (keys.Count < count)
        {
            var key = Key();
            if (slots.Add(map.SlotOf(key)))
            {
                keys.Add(key);
            }
        }

        return [.. keys];
    }

    /// <summary>The argument for an EX/PX/EXAT/PXAT option that expires <paramref name="milliseconds"/> from the silo's now.</summary>
    private static long ExpiryArgument(ClockedSilo silo, string option, long milliseconds) => option.ToUpperInvariant() switch
    {
        "EX" => milliseconds / 1000,
        "PX" => milliseconds,
        "EXAT" => silo.NowSeconds + (milliseconds / 1000),
        _ => silo.NowMs + milliseconds,
    };
}
