using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>DEL, UNLINK, EXISTS, TYPE, SCAN, KEYS, DBSIZE, FLUSHALL and FLUSHDB; the whole-keyspace ones on fresh silos.</summary>
public sealed class KeyspaceCommandTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private readonly TestSilo _silo = fixture.Silo;

    private static string Key() => SiloClients.UniqueKey("keyspace");

    [Theory]
    [InlineData("DEL")]
    [InlineData("UNLINK")]
    [InlineData("del")]
    public async Task Del_and_unlink_remove_keys_and_count_each_removed_key_once(string command)
    {
        await using var c = await _silo.ConnectAsync();
        string a = Key(), b = Key(), missing = Key();
        RespAssert.Ok(await c.CallAsync("MSET", a, "1", b, "2"));
        RespAssert.Integer(2, await c.CallAsync(command, a, missing, b, a));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", a, b));
        RespAssert.Integer(0, await c.CallAsync(command, a));
    }

    [Fact]
    public async Task Exists_counts_a_key_once_for_every_time_it_is_named()
    {
        await using var c = await _silo.ConnectAsync();
        string a = Key(), b = Key(), missing = Key();
        RespAssert.Ok(await c.CallAsync("MSET", a, "1", b, "2"));
        RespAssert.Integer(1, await c.CallAsync("EXISTS", a));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", missing));
        RespAssert.Integer(4, await c.CallAsync("EXISTS", a, a, missing, b, a));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Type_is_string_for_a_key_and_none_for_a_missing_one(int protocol)
    {
        await using var c = await _silo.ConnectAsync(protocol);
        var key = Key();
        RespAssert.SimpleString("none", await c.CallAsync("TYPE", key));
        RespAssert.Ok(await c.CallAsync("SET", key, "v"));
        RespAssert.SimpleString("string", await c.CallAsync("TYPE", key));
    }

    [Theory]
    [InlineData("GET")]
    [InlineData("SET", "v")]
    [InlineData("GETEX")]
    [InlineData("APPEND", "v")]
    [InlineData("INCR")]
    [InlineData("EXPIRE", "10")]
    [InlineData("TTL")]
    [InlineData("DEL")]
    [InlineData("EXISTS")]
    [InlineData("TYPE")]
    [InlineData("MGET")]
    [InlineData("MSET", "v")]
    [InlineData("CUBBY.SET", "v")]
    [InlineData("CUBBY.GET")]
    public async Task Empty_keys_are_rejected(string command, params string[] rest)
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError("ERR empty keys are not allowed", await c.CallAsync([command, "", .. rest]));
    }

    [Fact]
    public async Task A_key_in_a_multi_key_command_that_is_empty_fails_the_whole_command()
    {
        await using var c = await _silo.ConnectAsync();
        string a = Key(), b = Key();
        SiloClients.AssertError("ERR empty keys are not allowed", await c.CallAsync("MSET", a, "1", "", "2", b, "3"));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", a, b));
    }

    [Fact]
    public async Task Keys_longer_than_MaxKeyBytes_are_rejected()
    {
        await using var silo = await TestSilo.StartAsync(o => o.MaxKeyBytes = 16);
        await using var c = await silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("SET", new string('k', 16), "v"));
        RespAssert.Error("ERR key is 17 bytes, over the limit of 16 bytes", await c.CallAsync("SET", new string('k', 17), "v"));
        RespAssert.Error("ERR key is 17 bytes", await c.CallAsync("GET", new string('k', 17)));
        RespAssert.Integer(1, await c.CallAsync("DBSIZE"));
    }

    [Fact]
    public async Task Dbsize_counts_the_keys()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Integer(0, await s.CallAsync("DBSIZE"));
        RespAssert.Ok(await s.CallAsync("MSET", "a", "1", "b", "2", "c", "3"));
        RespAssert.Integer(3, await s.CallAsync("DBSIZE"));
        RespAssert.Ok(await s.CallAsync("SET", "a", "again"));
        RespAssert.Integer(3, await s.CallAsync("DBSIZE"));
        RespAssert.Integer(1, await s.CallAsync("DEL", "b"));
        RespAssert.Integer(2, await s.CallAsync("DBSIZE"));
    }

    [Theory]
    [InlineData("FLUSHALL")]
    [InlineData("FLUSHALL ASYNC")]
    [InlineData("FLUSHALL sync")]
    [InlineData("FLUSHDB")]
    [InlineData("FLUSHDB ASYNC")]
    [InlineData("flushdb SYNC")]
    public async Task Flushall_and_flushdb_remove_every_key(string command)
    {
        await using var s = await ClockedSilo.StartAsync();
        for (var i = 0; i < 100; i++)
        {
            RespAssert.Ok(await s.CallAsync("SET", $"key:{i}", "v"));
        }

        RespAssert.Ok(await s.CallAsync(SiloClients.Words(command)));
        RespAssert.Integer(0, await s.CallAsync("DBSIZE"));
        RespAssert.Null(await s.CallAsync("GET", "key:7"));
        Assert.Empty((await s.CallAsync("KEYS", "*")).Items);
        RespAssert.Ok(await s.CallAsync("SET", "key:7", "again"));
        RespAssert.Integer(1, await s.CallAsync("DBSIZE"));
    }

    [Theory]
    [InlineData("FLUSHALL LATER")]
    [InlineData("FLUSHALL ASYNC SYNC")]
    [InlineData("FLUSHDB now")]
    public async Task Flush_with_an_unknown_option_is_a_syntax_error_and_keeps_the_keys(string command)
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "k", "v"));
        SiloClients.AssertError("ERR syntax error", await s.CallAsync(SiloClients.Words(command)));
        RespAssert.Integer(1, await s.CallAsync("DBSIZE"));
    }

    [Theory]
    [InlineData("*", "hello hallo hxllo hllo heeeello h*llo a-b b c d")]
    [InlineData("h?llo", "hello hallo hxllo h*llo")]
    [InlineData("h*llo", "hello hallo hxllo hllo heeeello h*llo")]
    [InlineData("h[ae]llo", "hello hallo")]
    [InlineData("h[^e]llo", "hallo hxllo h*llo")]
    [InlineData("h[a-b]llo", "hallo")]
    [InlineData("[a-c]", "b c")]
    [InlineData("h\\*llo", "h*llo")]
    [InlineData("h[\\*]llo", "h*llo")]
    [InlineData("a\\-b", "a-b")]
    [InlineData("*ll*", "hello hallo hxllo hllo heeeello h*llo")]
    [InlineData("nomatch*", "")]
    [InlineData("HELLO", "")]
    public async Task Keys_returns_the_keys_matching_a_glob_pattern(string pattern, string expected)
    {
        await using var s = await ClockedSilo.StartAsync();
        foreach (var key in SiloClients.Words("hello hallo hxllo hllo heeeello h*llo a-b b c d"))
        {
            RespAssert.Ok(await s.CallAsync("SET", key, "v"));
        }

        var reply = await s.CallAsync("KEYS", pattern);
        Assert.Equal(RespType.Array, reply.Type);
        Assert.Equal(SiloClients.Words(expected).Order(StringComparer.Ordinal), RespAssert.Strings(reply).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task Keys_does_not_return_expired_keys()
    {
        await using var s = await ClockedSilo.StartAsync();
        RespAssert.Ok(await s.CallAsync("SET", "short", "v", "PX", 100));
        RespAssert.Ok(await s.CallAsync("SET", "long", "v"));
        s.Advance(100);
        Assert.Equal(["long"], RespAssert.Strings(await s.CallAsync("KEYS", "*")));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Scan_of_an_empty_keyspace_replies_with_cursor_0_and_no_keys(int protocol)
    {
        await using var s = await ClockedSilo.StartAsync(protocol);
        var reply = await s.CallAsync("SCAN", 0);
        Assert.Equal(RespType.Array, reply.Type);
        Assert.Equal(2, reply.Items.Count);
        RespAssert.Bulk("0", reply.Items[0]);
        Assert.Equal(RespType.Array, reply.Items[1].Type);
        Assert.Empty(reply.Items[1].Items);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(100)]
    public async Task A_full_scan_returns_every_key_exactly_once_across_many_slots(int count)
    {
        await using var s = await ClockedSilo.StartAsync();
        var keys = Enumerable.Range(0, 300).Select(i => $"scan:{i}").ToArray();
        var map = new ShardMap();
        Assert.True(keys.Select(k => map.SlotOf(k)).Distinct().Count() > 100, "the keys should spread over many slots");
        foreach (var batch in keys.Chunk(50))
        {
            RespAssert.Ok(await s.CallAsync(["MSET", .. batch.SelectMany(k => new[] { k, "v" })]));
        }

        var (seen, calls) = await ScanAllAsync(s, "COUNT", count);
        Assert.Equal(keys.Order(StringComparer.Ordinal), seen.Order(StringComparer.Ordinal));
        Assert.True(calls > 1, "the scan should take several calls");
    }

    [Fact]
    public async Task A_scan_without_count_pages_through_the_keyspace()
    {
        await using var s = await ClockedSilo.StartAsync();
        var keys = Enumerable.Range(0, 60).Select(i => $"page:{i}").ToArray();
        RespAssert.Ok(await s.CallAsync(["MSET", .. keys.SelectMany(k => new[] { k, "v" })]));
        var (seen, calls) = await ScanAllAsync(s);
        Assert.Equal(keys.Order(StringComparer.Ordinal), seen.Order(StringComparer.Ordinal));
        Assert.True(calls > 1, "the default COUNT is 10, so 60 keys take several calls");
    }

    [Fact]
    public async Task Scan_MATCH_returns_only_matching_keys()
    {
        await using var s = await ClockedSilo.StartAsync();
        for (var i = 0; i < 20; i++)
        {
            RespAssert.Ok(await s.CallAsync("MSET", $"user:{i}", "u", $"order:{i}", "o"));
        }

        var (seen, _) = await ScanAllAsync(s, "MATCH", "user:*", "COUNT", 5);
        Assert.Equal(Enumerable.Range(0, 20).Select(i => $"user:{i}").Order(StringComparer.Ordinal), seen.Order(StringComparer.Ordinal));
        var (ones, _) = await ScanAllAsync(s, "match", "*:1?", "count", 1000);
        Assert.Equal(20, ones.Count);
    }

    [Theory]
    [InlineData("string", 30)]
    [InlineData("STRING", 30)]
    [InlineData("hash", 0)]
    [InlineData("list", 0)]
    public async Task Scan_TYPE_filters_by_type_and_every_key_is_a_string(string type, int expected)
    {
        await using var s = await ClockedSilo.StartAsync();
        for (var i = 0; i < 30; i++)
        {
            RespAssert.Ok(await s.CallAsync("SET", $"key:{i}", "v"));
        }

        var (seen, _) = await ScanAllAsync(s, "TYPE", type, "COUNT", 10);
        Assert.Equal(expected, seen.Count);
    }

    [Theory]
    [InlineData("abc")]
    [InlineData("1x")]
    [InlineData("1.5")]
    [InlineData("99999999999999999999999")]
    public async Task Scan_with_an_invalid_cursor_is_rejected(string cursor)
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError("ERR invalid cursor", await c.CallAsync("SCAN", cursor));
    }

    [Theory]
    [InlineData("COUNT 0", "ERR syntax error")]
    [InlineData("COUNT -1", "ERR syntax error")]
    [InlineData("COUNT", "ERR syntax error")]
    [InlineData("MATCH", "ERR syntax error")]
    [InlineData("FOO bar", "ERR syntax error")]
    [InlineData("COUNT ten", "ERR value is not an integer or out of range")]
    public async Task Scan_with_bad_options_is_rejected(string options, string error)
    {
        await using var c = await _silo.ConnectAsync();
        SiloClients.AssertError(error, await c.CallAsync(["SCAN", "0", .. SiloClients.Words(options)]));
    }

    private static async Task<(List<string> Keys, int Calls)> ScanAllAsync(ClockedSilo s, params object[] options)
    {
        var keys = new List<string>();
        var cursor = "0";
        var calls = 0;
        do
        {
            var reply = await s.CallAsync(["SCAN", cursor, .. options]);
            Assert.Equal(2, reply.Items.Count);
            cursor = reply.Items[0].AsString()!;
            keys.AddRange(RespAssert.Strings(reply.Items[1]));
            calls++;
            Assert.True(calls <= 10_000, "the scan should end");
        }
        while (cursor != "0");

        return (keys, calls);
    }
}
