using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>EXPIRE and its family, PERSIST, TTL, PTTL, EXPIRETIME and PEXPIRETIME; time moves only on a fake clock.</summary>
public sealed class ExpiryCommandTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private readonly TestSilo _silo = fixture.Silo;

    private static string Key() => SiloClients.UniqueKey("expiry");

    [Fact]
    public async Task Expire_sets_a_time_to_live_in_seconds()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v"));
        RespAssert.Integer(1, await s.CallAsync("EXPIRE", "k", 10));
        RespAssert.Integer(10, await s.CallAsync("TTL", "k"));
        RespAssert.Integer(10_000, await s.CallAsync("PTTL", "k"));
        RespAssert.Integer(s.NowSeconds + 10, await s.CallAsync("EXPIRETIME", "k"));
        RespAssert.Integer(s.NowMs + 10_000, await s.CallAsync("PEXPIRETIME", "k"));
    }

    [Fact]
    public async Task Pexpire_counts_down_and_ttl_rounds_to_the_nearest_second()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v"));
        RespAssert.Integer(1, await s.CallAsync("PEXPIRE", "k", 1500));
        RespAssert.Integer(1500, await s.CallAsync("PTTL", "k"));
        RespAssert.Integer(2, await s.CallAsync("TTL", "k"));
        s.Advance(1000);
        RespAssert.Integer(500, await s.CallAsync("PTTL", "k"));
        RespAssert.Integer(1, await s.CallAsync("TTL", "k"));
        s.Advance(499);
        RespAssert.Integer(1, await s.CallAsync("PTTL", "k"));
        RespAssert.Integer(0, await s.CallAsync("TTL", "k"));
        RespAssert.Bulk("v", await s.CallAsync("GET", "k"));
        s.Advance(1);
        RespAssert.Null(await s.CallAsync("GET", "k"));
        RespAssert.Integer(-2, await s.CallAsync("TTL", "k"));
        RespAssert.Integer(-2, await s.CallAsync("PTTL", "k"));
    }

    [Fact]
    public async Task Expireat_and_pexpireat_set_an_absolute_deadline()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("MSET", "a", "1", "b", "2"));
        RespAssert.Integer(1, await s.CallAsync("EXPIREAT", "a", s.NowSeconds + 100));
        RespAssert.Integer(100, await s.CallAsync("TTL", "a"));
        RespAssert.Integer(s.NowSeconds + 100, await s.CallAsync("EXPIRETIME", "a"));
        RespAssert.Integer(1, await s.CallAsync("PEXPIREAT", "b", s.NowMs + 1234));
        RespAssert.Integer(1234, await s.CallAsync("PTTL", "b"));
        RespAssert.Integer(s.NowMs + 1234, await s.CallAsync("PEXPIRETIME", "b"));
        s.Advance(1234);
        RespAssert.Integer(0, await s.CallAsync("EXISTS", "b"));
        RespAssert.Integer(1, await s.CallAsync("EXISTS", "a"));
    }

    [Theory]
    [InlineData(10_600, 11)]
    [InlineData(10_500, 11)]
    [InlineData(10_499, 10)]
    [InlineData(10_000, 10)]
    public async Task Expiretime_rounds_the_deadline_to_the_nearest_second_as_Redis_does(long milliseconds, long seconds)
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v"));
        RespAssert.Integer(1, await s.CallAsync("PEXPIREAT", "k", s.NowMs + milliseconds));
        RespAssert.Integer(s.NowSeconds + seconds, await s.CallAsync("EXPIRETIME", "k"));
        RespAssert.Integer(s.NowMs + milliseconds, await s.CallAsync("PEXPIRETIME", "k"));
    }

    [Theory]
    [InlineData("EXPIRE", "10")]
    [InlineData("PEXPIRE", "10000")]
    [InlineData("EXPIREAT", "4000000000")]
    [InlineData("PEXPIREAT", "4000000000000")]
    [InlineData("EXPIRE", "-1")]
    public async Task The_expire_family_replies_0_for_a_missing_key(string command, string time)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Integer(0, await c.CallAsync(command, key, time));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
    }

    [Theory]
    [InlineData("TTL", -2)]
    [InlineData("PTTL", -2)]
    [InlineData("EXPIRETIME", -2)]
    [InlineData("PEXPIRETIME", -2)]
    public async Task Ttl_family_replies_minus_2_for_a_missing_key_and_minus_1_without_expiry(string command, long missing)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Integer(missing, await c.CallAsync(command, key));
        RespAssert.Ok(await c.CallAsync("SET", key, "v"));
        RespAssert.Integer(-1, await c.CallAsync(command, key));
    }

    [Theory]
    [InlineData("EXPIRE", "-1")]
    [InlineData("EXPIRE", "0")]
    [InlineData("PEXPIRE", "-100")]
    [InlineData("PEXPIRE", "0")]
    [InlineData("EXPIREAT", "1")]
    [InlineData("PEXPIREAT", "0")]
    [InlineData("PEXPIREAT", "-9223372036854775808")]
    public async Task An_expire_time_now_or_in_the_past_deletes_the_key_and_replies_1(string command, string time)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "v"));
        RespAssert.Integer(1, await c.CallAsync(command, key, time));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
        RespAssert.Integer(-2, await c.CallAsync("TTL", key));
    }

    [Fact]
    public async Task Pexpireat_the_current_millisecond_deletes_the_key()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v"));
        RespAssert.Integer(1, await s.CallAsync("PEXPIREAT", "k", s.NowMs));
        RespAssert.Integer(0, await s.CallAsync("EXISTS", "k"));
    }

    [Theory]
    [InlineData(-1, "NX", 50, 1, 50)]
    [InlineData(100, "NX", 50, 0, 100)]
    [InlineData(-1, "XX", 50, 0, -1)]
    [InlineData(100, "XX", 50, 1, 50)]
    [InlineData(-1, "GT", 50, 0, -1)]
    [InlineData(100, "GT", 50, 0, 100)]
    [InlineData(100, "GT", 100, 0, 100)]
    [InlineData(100, "GT", 200, 1, 200)]
    [InlineData(-1, "LT", 50, 1, 50)]
    [InlineData(100, "LT", 200, 0, 100)]
    [InlineData(100, "LT", 100, 0, 100)]
    [InlineData(100, "LT", 50, 1, 50)]
    [InlineData(-1, "XX LT", 50, 0, -1)]
    [InlineData(100, "XX LT", 50, 1, 50)]
    [InlineData(-1, "XX GT", 50, 0, -1)]
    [InlineData(100, "XX GT", 200, 1, 200)]
    [InlineData(100, "GT XX", 50, 0, 100)]
    [InlineData(100, "nx", 50, 0, 100)]
    [InlineData(-1, "lt", 50, 1, 50)]
    [InlineData(-1, "LT", -1, 1, -2)]
    [InlineData(100, "GT", -1, 0, 100)]
    [InlineData(100, "NX NX", 50, 0, 100)]
    public async Task Expire_conditions_NX_XX_GT_LT_apply_as_in_Redis(long initialTtl, string condition, long newTtl, long reply, long ttlAfter)
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(initialTtl < 0 ? await s.CallAsync("SET", "k", "v") : await s.CallAsync("SET", "k", "v", "EX", initialTtl));
        RespAssert.Integer(reply, await s.CallAsync(["EXPIRE", "k", newTtl, .. SiloClients.Words(condition)]));
        RespAssert.Integer(ttlAfter, await s.CallAsync("TTL", "k"));
    }

    [Theory]
    [InlineData("PEXPIRE", 100_000, "GT", 200_000, 1, 200_000)]
    [InlineData("PEXPIREAT", 100_000, "LT", 50_000, 1, 50_000)]
    [InlineData("EXPIREAT", 100_000, "NX", 50_000, 0, 100_000)]
    [InlineData("PEXPIREAT", -1, "XX", 50_000, 0, -1)]
    public async Task Every_expire_command_takes_the_conditions(string command, long initialMs, string condition, long newMs, long reply, long pttlAfter)
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(initialMs < 0 ? await s.CallAsync("SET", "k", "v") : await s.CallAsync("SET", "k", "v", "PX", initialMs));
        var time = command switch
        {
            "PEXPIRE" => newMs,
            "EXPIREAT" => s.NowSeconds + (newMs / 1000),
            _ => s.NowMs + newMs,
        };
        RespAssert.Integer(reply, await s.CallAsync(command, "k", time, condition));
        RespAssert.Integer(pttlAfter, await s.CallAsync("PTTL", "k"));
    }

    [Theory]
    [InlineData("EXPIRE", "NX XX", "ERR NX and XX, GT or LT options at the same time are not compatible")]
    [InlineData("EXPIRE", "XX NX", "ERR NX and XX, GT or LT options at the same time are not compatible")]
    [InlineData("PEXPIRE", "NX GT", "ERR NX and XX, GT or LT options at the same time are not compatible")]
    [InlineData("EXPIREAT", "LT NX", "ERR NX and XX, GT or LT options at the same time are not compatible")]
    [InlineData("EXPIRE", "GT LT", "ERR GT and LT options at the same time are not compatible")]
    [InlineData("PEXPIREAT", "LT GT", "ERR GT and LT options at the same time are not compatible")]
    [InlineData("EXPIRE", "XX GT LT", "ERR GT and LT options at the same time are not compatible")]
    [InlineData("EXPIRE", "FOO", "ERR Unsupported option FOO")]
    [InlineData("PEXPIRE", "NX bar", "ERR Unsupported option bar")]
    public async Task Incompatible_or_unknown_expire_options_are_rejected_with_Redis_errors(string command, string options, string error)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "v"));
        SiloClients.AssertError(error, await c.CallAsync([command, key, 100, .. SiloClients.Words(options)]));
        RespAssert.Integer(-1, await c.CallAsync("TTL", key));
    }

    [Fact]
    public async Task Expire_options_are_checked_before_the_time()
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError("ERR Unsupported option FOO", await c.CallAsync("EXPIRE", Key(), "abc", "FOO"));
    }

    [Theory]
    [InlineData("EXPIRE", "abc", "ERR value is not an integer or out of range")]
    [InlineData("PEXPIREAT", "1.5", "ERR value is not an integer or out of range")]
    [InlineData("EXPIRE", "9223372036854775807", "ERR invalid expire time in 'expire' command")]
    [InlineData("EXPIRE", "-9223372036854775808", "ERR invalid expire time in 'expire' command")]
    [InlineData("EXPIRE", "9223372036854775", "ERR invalid expire time in 'expire' command")]
    [InlineData("PEXPIRE", "9223372036854775807", "ERR invalid expire time in 'pexpire' command")]
    [InlineData("EXPIREAT", "9223372036854775807", "ERR invalid expire time in 'expireat' command")]
    public async Task A_non_integer_or_overflowing_expire_time_is_rejected_even_for_a_missing_key(string command, string time, string error)
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        SiloClients.AssertError(error, await c.CallAsync(command, key, time));
        RespAssert.Ok(await c.CallAsync("SET", key, "v"));
        SiloClients.AssertError(error, await c.CallAsync(command, key, time));
        RespAssert.Integer(-1, await c.CallAsync("TTL", key));
    }

    [Fact]
    public async Task Pexpireat_accepts_the_largest_timestamp()
    {
        await using var c = await _silo.ConnectAsync();
        var key = Key();
        RespAssert.Ok(await c.CallAsync("SET", key, "v"));
        RespAssert.Integer(1, await c.CallAsync("PEXPIREAT", key, long.MaxValue));
        RespAssert.Integer(long.MaxValue, await c.CallAsync("PEXPIRETIME", key));
    }

    [Fact]
    public async Task Persist_removes_the_expiry_and_replies_whether_there_was_one()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v", "PX", 1000));
        RespAssert.Integer(1, await s.CallAsync("PERSIST", "k"));
        RespAssert.Integer(-1, await s.CallAsync("PTTL", "k"));
        RespAssert.Integer(0, await s.CallAsync("PERSIST", "k"));
        RespAssert.Integer(0, await s.CallAsync("PERSIST", "missing"));
        s.Advance(5000);
        RespAssert.Bulk("v", await s.CallAsync("GET", "k"));
    }

    [Fact]
    public async Task Reading_a_key_with_a_plain_expiry_does_not_extend_it()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v", "PX", 1000));
        s.Advance(600);
        RespAssert.Bulk("v", await s.CallAsync("GET", "k"));
        RespAssert.Bulk("v", await s.CallAsync("GETRANGE", "k", 0, -1));
        RespAssert.Integer(400, await s.CallAsync("PTTL", "k"));
    }

    [Fact]
    public async Task An_expired_key_is_gone_for_every_command_once_the_clock_passes_its_deadline()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v", "PX", 1000));
        s.Advance(999);
        RespAssert.Integer(1, await s.CallAsync("EXISTS", "k"));
        s.Advance(1);
        RespAssert.Null(await s.CallAsync("GET", "k"));
        RespAssert.Integer(0, await s.CallAsync("EXISTS", "k"));
        RespAssert.SimpleString("none", await s.CallAsync("TYPE", "k"));
        RespAssert.Integer(0, await s.CallAsync("STRLEN", "k"));
        RespAssert.Integer(0, await s.CallAsync("DEL", "k"));
        RespAssert.Integer(1, await s.CallAsync("SETNX", "k", "new"));
        RespAssert.Integer(-1, await s.CallAsync("PTTL", "k"));
        var info = SiloClients.InfoFields((await s.CallAsync("INFO", "stats")).AsString()!);
        Assert.Equal("1", info["expired_keys"]);
    }

    [Fact]
    public async Task The_active_expiry_cycle_removes_expired_keys_that_nobody_reads()
    {
        await using var s = await ClockedSilo.StartAsync(configure: o => o.ActiveExpiryInterval = TimeSpan.FromSeconds(1));
        for (var i = 0; i < 50; i++)
        {
            RespAssert.Ok(await s.CallAsync("SET", $"key:{i}", "v", "PX", 1500));
        }

        RespAssert.Integer(50, await s.CallAsync("DBSIZE"));

        // Past the deadline but before the next cycle, as in Redis, DBSIZE still counts the expired keys. (The fake
        // clock moves to the end of an advance before it runs the timers due within it, so the cycle at 1 s gets its
        // own advance.)
        s.Advance(1000);
        s.Advance(500);
        RespAssert.Integer(50, await s.CallAsync("DBSIZE"));

        s.Advance(500);
        RespAssert.Integer(0, await s.CallAsync("DBSIZE"));
        var info = SiloClients.InfoFields((await s.CallAsync("INFO", "stats")).AsString()!);
        Assert.Equal("50", info["expired_keys"]);
    }

    [Fact]
    public async Task A_new_expire_replaces_the_old_one_and_set_without_options_clears_it()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v", "EX", 100));
        RespAssert.Integer(1, await s.CallAsync("EXPIRE", "k", 10));
        RespAssert.Integer(10, await s.CallAsync("TTL", "k"));
        RespAssert.Integer(1, await s.CallAsync("PEXPIRE", "k", 500_000));
        RespAssert.Integer(500, await s.CallAsync("TTL", "k"));
        RespAssert.Ok(await s.CallAsync("SET", "k", "w"));
        RespAssert.Integer(-1, await s.CallAsync("TTL", "k"));
    }
}
