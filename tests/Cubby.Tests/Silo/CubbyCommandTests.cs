using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>CUBBY.GET, CUBBY.SET and CUBBY.REFRESH: flags, conditions, and sliding expiry capped by an absolute deadline.</summary>
public sealed class CubbyCommandTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private readonly TestSilo _silo = fixture.Silo;

    private static string Key() => SiloClients.UniqueKey("cubby");

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Cubby_get_replies_with_value_flags_and_milliseconds_to_live(int protocol)
    {
        await using var s = await ClockedSilo.StartAsync(protocol);
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "payload", "FLAGS", 7, "PXAT", s.NowMs + 60_000));
        var reply = await s.CallAsync("CUBBY.GET", "k");
        Assert.Equal(RespType.Array, reply.Type);
        Assert.Equal(3, reply.Items.Count);
        RespAssert.Bulk("payload", reply.Items[0]);
        RespAssert.Integer(7, reply.Items[1]);
        RespAssert.Integer(60_000, reply.Items[2]);
        s.Advance(1000);
        RespAssert.Integer(59_000, (await s.CallAsync("CUBBY.GET", "k")).Items[2]);
    }

    [Fact]
    public async Task Cubby_get_reports_minus_1_for_an_entry_without_expiry_and_reads_plain_sets()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "plain"));
        var reply = await c.CallAsync("CUBBY.GET", key);
        RespAssert.Bulk("plain", reply.Items[0]);
        RespAssert.Integer(0, reply.Items[1]);
        RespAssert.Integer(-1, reply.Items[2]);
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Cubby_get_of_a_missing_key_is_null(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        SiloClients.AssertNull(await c.CallAsync("CUBBY.GET", Key()), protocol);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(42)]
    [InlineData(2147483648)]
    [InlineData(4294967295)]
    public async Task Flags_round_trip(long flags)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Integer(1, await c.CallAsync("CUBBY.SET", key, "v", "FLAGS", flags));
        RespAssert.Integer(flags, (await c.CallAsync("CUBBY.GET", key)).Items[1]);
    }

    [Theory]
    [InlineData("-1", "ERR FLAGS must be an unsigned 32-bit integer")]
    [InlineData("4294967296", "ERR FLAGS must be an unsigned 32-bit integer")]
    [InlineData("abc", "ERR value is not an integer or out of range")]
    public async Task Flags_outside_32_bits_are_rejected(string flags, string error)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        SiloClients.AssertError(error, await c.CallAsync("CUBBY.SET", key, "v", "FLAGS", flags));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
    }

    [Fact]
    public async Task A_plain_set_replaces_flags_and_sliding_expiry()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "v", "SLIDE", 1000, "FLAGS", 9));
        RespAssert.Ok(await s.CallAsync("SET", "k", "w"));
        var reply = await s.CallAsync("CUBBY.GET", "k");
        RespAssert.Bulk("w", reply.Items[0]);
        RespAssert.Integer(0, reply.Items[1]);
        RespAssert.Integer(-1, reply.Items[2]);
    }

    [Fact]
    public async Task Cubby_set_replies_1_when_created_2_when_updated_and_0_when_not_stored()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Integer(0, await c.CallAsync("CUBBY.SET", key, "v", "XX"));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
        RespAssert.Integer(1, await c.CallAsync("CUBBY.SET", key, "first", "NX"));
        RespAssert.Integer(0, await c.CallAsync("CUBBY.SET", key, "second", "nx"));
        RespAssert.Bulk("first", await c.CallAsync("GET", key));
        RespAssert.Integer(2, await c.CallAsync("CUBBY.SET", key, "third", "XX"));
        RespAssert.Integer(2, await c.CallAsync("CUBBY.SET", key, "fourth"));
        RespAssert.Bulk("fourth", await c.CallAsync("GET", key));
        RespAssert.Integer(1, await c.CallAsync("CUBBY.SET", Key(), "v"));
    }

    [Theory]
    [InlineData("NX XX")]
    [InlineData("XX NX")]
    [InlineData("BOGUS")]
    [InlineData("PXAT")]
    [InlineData("SLIDE")]
    [InlineData("FLAGS")]
    [InlineData("EX 10")]
    public async Task Cubby_set_with_conflicting_or_unknown_options_is_a_syntax_error(string options)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        SiloClients.AssertError("ERR syntax error", await c.CallAsync(["CUBBY.SET", key, "v", .. SiloClients.Words(options)]));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
    }

    [Fact]
    public async Task Pxat_sets_an_absolute_deadline()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "v", "PXAT", s.NowMs + 5000));
        RespAssert.Integer(5000, await s.CallAsync("PTTL", "k"));
        s.Advance(4999);
        RespAssert.Bulk("v", await s.CallAsync("GET", "k"));
        RespAssert.Integer(1, await s.CallAsync("PTTL", "k"));
        s.Advance(1);
        RespAssert.Null(await s.CallAsync("CUBBY.GET", "k"));
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(0)]
    public async Task Pxat_now_or_in_the_past_is_rejected(long offset)
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Error("ERR invalid expire time in 'cubby.set' command", await s.CallAsync("CUBBY.SET", "k", "v", "PXAT", s.NowMs + offset));
        RespAssert.Error("ERR invalid expire time in 'cubby.set' command", await s.CallAsync("CUBBY.SET", "k", "v", "PXAT", 1));
        RespAssert.Integer(0, await s.CallAsync("EXISTS", "k"));
    }

    [Theory]
    [InlineData("0", "ERR invalid expire time in 'cubby.set' command")]
    [InlineData("-5", "ERR invalid expire time in 'cubby.set' command")]
    [InlineData("1.5", "ERR value is not an integer or out of range")]
    public async Task Slide_must_be_a_positive_integer(string slide, string errorPrefix)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Error(errorPrefix, await c.CallAsync("CUBBY.SET", key, "v", "SLIDE", slide));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
    }

    [Fact]
    public async Task A_sliding_entry_is_renewed_by_get_cubby_get_and_cubby_refresh_and_expires_when_left_alone()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "v", "SLIDE", 1000));
        RespAssert.Integer(1000, await s.CallAsync("PTTL", "k"));

        s.Advance(600);
        RespAssert.Integer(400, await s.CallAsync("PTTL", "k"));
        RespAssert.Bulk("v", await s.CallAsync("GET", "k"));
        RespAssert.Integer(1000, await s.CallAsync("PTTL", "k"));

        s.Advance(600);
        RespAssert.Integer(1000, (await s.CallAsync("CUBBY.GET", "k")).Items[2]);

        s.Advance(600);
        RespAssert.Integer(1, await s.CallAsync("CUBBY.REFRESH", "k"));
        RespAssert.Integer(1000, await s.CallAsync("PTTL", "k"));

        s.Advance(999);
        RespAssert.Integer(1, await s.CallAsync("EXISTS", "k"));
        s.Advance(1);
        RespAssert.Null(await s.CallAsync("GET", "k"));
        RespAssert.Integer(0, await s.CallAsync("CUBBY.REFRESH", "k"));
    }

    [Theory]
    [InlineData("MGET", true)]
    [InlineData("GETRANGE", true)]
    [InlineData("GETEX", true)]
    [InlineData("GET", true)]
    [InlineData("CUBBY.GET", true)]
    [InlineData("CUBBY.REFRESH", true)]
    [InlineData("STRLEN", false)]
    [InlineData("EXISTS", false)]
    [InlineData("TYPE", false)]
    [InlineData("TTL", false)]
    [InlineData("PTTL", false)]
    [InlineData("EXPIRETIME", false)]
    public async Task Reads_renew_the_sliding_window_and_other_commands_do_not(string command, bool renews)
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "v", "SLIDE", 1000));
        s.Advance(600);
        object[] request = command == "GETRANGE" ? [command, "k", 0, -1] : [command, "k"];
        Assert.False((await s.CallAsync(request)).IsError);
        RespAssert.Integer(renews ? 1000 : 400, await s.CallAsync("PTTL", "k"));
    }

    [Fact]
    public async Task The_sliding_window_never_extends_past_pxat()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "v", "SLIDE", 1000, "PXAT", s.NowMs + 2500));
        RespAssert.Integer(1000, await s.CallAsync("PTTL", "k"));
        s.Advance(900);
        RespAssert.Bulk("v", await s.CallAsync("GET", "k"));
        RespAssert.Integer(1000, await s.CallAsync("PTTL", "k"));
        s.Advance(900);
        RespAssert.Integer(700, (await s.CallAsync("CUBBY.GET", "k")).Items[2]);
        s.Advance(600);
        RespAssert.Integer(1, await s.CallAsync("CUBBY.REFRESH", "k"));
        RespAssert.Integer(100, await s.CallAsync("PTTL", "k"));
        RespAssert.Integer(s.NowMs + 100, await s.CallAsync("PEXPIRETIME", "k"));
        s.Advance(100);
        RespAssert.Null(await s.CallAsync("GET", "k"));
    }

    [Fact]
    public async Task A_pxat_sooner_than_the_window_caps_the_first_deadline()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "v", "PXAT", s.NowMs + 300, "SLIDE", 1000));
        RespAssert.Integer(300, (await s.CallAsync("CUBBY.GET", "k")).Items[2]);
    }

    [Fact]
    public async Task Expire_replaces_sliding_with_a_plain_deadline_that_reads_do_not_renew()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "v", "SLIDE", 1000));
        RespAssert.Integer(1, await s.CallAsync("EXPIRE", "k", 10));
        s.Advance(1000);
        RespAssert.Bulk("v", await s.CallAsync("GET", "k"));
        RespAssert.Integer(1, await s.CallAsync("CUBBY.REFRESH", "k"));
        RespAssert.Integer(9000, await s.CallAsync("PTTL", "k"));
    }

    [Fact]
    public async Task Persist_removes_sliding_expiry()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "v", "SLIDE", 1000, "PXAT", s.NowMs + 5000));
        RespAssert.Integer(1, await s.CallAsync("PERSIST", "k"));
        RespAssert.Integer(-1, await s.CallAsync("PTTL", "k"));
        s.Advance(10_000);
        RespAssert.Bulk("v", await s.CallAsync("GET", "k"));
        RespAssert.Integer(-1, await s.CallAsync("PTTL", "k"));
    }

    [Fact]
    public async Task Getex_with_an_option_replaces_sliding_expiry()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "v", "SLIDE", 1000));
        RespAssert.Bulk("v", await s.CallAsync("GETEX", "k", "PX", 5000));
        s.Advance(1000);
        RespAssert.Bulk("v", await s.CallAsync("GET", "k"));
        RespAssert.Integer(4000, await s.CallAsync("PTTL", "k"));
    }

    [Fact]
    public async Task Set_keepttl_keeps_the_sliding_window()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "v", "SLIDE", 1000));
        s.Advance(600);
        RespAssert.Ok(await s.CallAsync("SET", "k", "w", "KEEPTTL"));
        RespAssert.Integer(400, await s.CallAsync("PTTL", "k"));
        RespAssert.Bulk("w", await s.CallAsync("GET", "k"));
        RespAssert.Integer(1000, await s.CallAsync("PTTL", "k"));
    }

    [Fact]
    public async Task Cubby_refresh_of_an_entry_without_sliding_expiry_replies_1_and_changes_nothing()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v", "PX", 1000));
        s.Advance(400);
        RespAssert.Integer(1, await s.CallAsync("CUBBY.REFRESH", "k"));
        RespAssert.Integer(600, await s.CallAsync("PTTL", "k"));
        RespAssert.Integer(0, await s.CallAsync("CUBBY.REFRESH", "missing"));
    }

    [Fact]
    public async Task Cubby_set_nx_on_an_expired_entry_creates_it()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "old", "SLIDE", 100));
        s.Advance(100);
        RespAssert.Integer(1, await s.CallAsync("CUBBY.SET", "k", "new", "NX", "FLAGS", 3));
        var reply = await s.CallAsync("CUBBY.GET", "k");
        RespAssert.Bulk("new", reply.Items[0]);
        RespAssert.Integer(3, reply.Items[1]);
        RespAssert.Integer(-1, reply.Items[2]);
    }
}
