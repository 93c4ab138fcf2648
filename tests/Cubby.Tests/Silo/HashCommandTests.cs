using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>The hash commands over a real socket, against Redis 7's replies and errors.</summary>
public sealed class HashCommandTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private const string WrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";

    private static string Key() => SiloClients.UniqueKey("hash");

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Hset_counts_new_fields_and_the_readers_see_them(int protocol)
    {
        await using var c = await fixture.Silo.ConnectAsync(protocol);
        var key = Key();

        RespAssert.Integer(2, await c.CallAsync("HSET", key, "a", "1", "b", "2"));
        RespAssert.Integer(1, await c.CallAsync("HSET", key, "b", "20", "c", "3", "c", "30"));
        RespAssert.Integer(2, await c.CallAsync("HSET", key + ":order", "x", "1", "y", "2", "x", "3"));
        Assert.Equal(["x", "3", "y", "2"], RespAssert.Strings(await c.CallAsync("HGETALL", key + ":order")).Take(4));

        RespAssert.Bulk("20", await c.CallAsync("HGET", key, "b"));
        SiloClients.AssertNull(await c.CallAsync("HGET", key, "absent"), protocol);
        Assert.Equal(["1", "(nil)", "30"], RespAssert.Strings(await c.CallAsync("HMGET", key, "a", "absent", "c")));
        var all = SiloClients.AssertMap(await c.CallAsync("HGETALL", key), protocol);
        Assert.Equal(new Dictionary<string, string> { ["a"] = "1", ["b"] = "20", ["c"] = "30" }, all.ToDictionary(static p => p.Key, static p => p.Value.AsString()!));
        Assert.Equal(["a", "b", "c"], RespAssert.Strings(await c.CallAsync("HKEYS", key)));
        Assert.Equal(["1", "20", "30"], RespAssert.Strings(await c.CallAsync("HVALS", key)));
        RespAssert.Integer(3, await c.CallAsync("HLEN", key));
        RespAssert.Integer(1, await c.CallAsync("HEXISTS", key, "a"));
        RespAssert.Integer(0, await c.CallAsync("HEXISTS", key, "z"));
        RespAssert.Integer(2, await c.CallAsync("HSTRLEN", key, "b"));
        RespAssert.Integer(0, await c.CallAsync("HSTRLEN", key, "z"));
        RespAssert.SimpleString("hash", await c.CallAsync("TYPE", key));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task An_absent_hash_reads_as_an_empty_one(int protocol)
    {
        await using var c = await fixture.Silo.ConnectAsync(protocol);
        var key = Key();

        SiloClients.AssertNull(await c.CallAsync("HGET", key, "f"), protocol);
        Assert.Equal(["(nil)", "(nil)"], RespAssert.Strings(await c.CallAsync("HMGET", key, "f", "g")));
        Assert.Empty(SiloClients.AssertMap(await c.CallAsync("HGETALL", key), protocol));
        Assert.Empty((await c.CallAsync("HKEYS", key)).Items);
        RespAssert.Integer(0, await c.CallAsync("HLEN", key));
        RespAssert.Integer(0, await c.CallAsync("HDEL", key, "f"));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
    }

    [Fact]
    public async Task Hsetnx_hmset_and_hdel_answer_as_redis_and_the_last_field_takes_the_key_with_it()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var key = Key();

        RespAssert.Integer(1, await c.CallAsync("HSETNX", key, "f", "first"));
        RespAssert.Integer(0, await c.CallAsync("HSETNX", key, "f", "second"));
        RespAssert.Bulk("first", await c.CallAsync("HGET", key, "f"));
        RespAssert.Ok(await c.CallAsync("HMSET", key, "g", "1", "h", "2"));
        RespAssert.Integer(2, await c.CallAsync("HDEL", key, "f", "g", "g", "absent"));
        RespAssert.Integer(1, await c.CallAsync("HLEN", key));

        RespAssert.Integer(1, await c.CallAsync("HDEL", key, "h"));

        RespAssert.Integer(0, await c.CallAsync("EXISTS", key));
        RespAssert.SimpleString("none", await c.CallAsync("TYPE", key));
    }

    [Fact]
    public async Task Hincrby_and_hincrbyfloat_add_to_fields_and_refuse_what_is_not_a_number()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var key = Key();

        RespAssert.Integer(5, await c.CallAsync("HINCRBY", key, "n", "5"));
        RespAssert.Integer(-1, await c.CallAsync("HINCRBY", key, "n", "-6"));
        RespAssert.Bulk("10.5", await c.CallAsync("HINCRBYFLOAT", key, "x", "10.5"));
        RespAssert.Bulk("10", await c.CallAsync("HINCRBYFLOAT", key, "x", "-0.5"));
        RespAssert.Ok(await c.CallAsync("HMSET", key, "text", "abc", "big", long.MaxValue.ToString(System.Globalization.CultureInfo.InvariantCulture)));

        RespAssert.Error("ERR hash value is not an integer", await c.CallAsync("HINCRBY", key, "text", "1"));
        RespAssert.Error("ERR hash value is not a float", await c.CallAsync("HINCRBYFLOAT", key, "text", "1"));
        RespAssert.Error("ERR increment or decrement would overflow", await c.CallAsync("HINCRBY", key, "big", "1"));
        RespAssert.Error("ERR value is not an integer or out of range", await c.CallAsync("HINCRBY", key, "n", "one"));
        RespAssert.Error("ERR value is not a valid float", await c.CallAsync("HINCRBYFLOAT", key, "x", "one"));
        RespAssert.Bulk("-1", await c.CallAsync("HGET", key, "n"));
    }

    [Fact]
    public async Task String_commands_on_a_hash_and_hash_commands_on_a_string_are_wrongtype_and_mget_skips_the_hash()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var hash = Key();
        var text = Key();
        RespAssert.Integer(1, await c.CallAsync("HSET", hash, "f", "1"));
        RespAssert.Ok(await c.CallAsync("SET", text, "1"));

        foreach (var command in new[] { new object[] { "GET", hash }, ["INCR", hash], ["APPEND", hash, "x"], ["GETDEL", hash], ["STRLEN", hash], ["SET", hash, "v", "GET"], ["GETEX", hash, "PERSIST"] })
        {
            RespAssert.Error(WrongType, await c.CallAsync(command));
        }

        foreach (var command in new[] { new object[] { "HGET", text, "f" }, ["HSET", text, "f", "1"], ["HGETALL", text], ["HLEN", text], ["HDEL", text, "f"], ["HINCRBY", text, "f", "1"] })
        {
            RespAssert.Error(WrongType, await c.CallAsync(command));
        }

        Assert.Equal(["(nil)", "1"], RespAssert.Strings(await c.CallAsync("MGET", hash, text)));
        RespAssert.Bulk("1", await c.CallAsync("HGET", hash, "f"));
        RespAssert.Bulk("1", await c.CallAsync("GET", text));
    }

    [Fact]
    public async Task Keyspace_and_expiry_commands_work_on_hashes_and_set_replaces_one()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var key = Key();
        RespAssert.Integer(1, await c.CallAsync("HSET", key, "f", "1"));

        RespAssert.Integer(1, await c.CallAsync("EXPIRE", key, "100"));
        RespAssert.Integer(1, await c.CallAsync("HSET", key, "g", "2"));
        Assert.InRange((await c.CallAsync("TTL", key)).Integer, 1, 100);
        RespAssert.Integer(1, await c.CallAsync("PERSIST", key));
        RespAssert.Integer(-1, await c.CallAsync("TTL", key));
        RespAssert.Integer(1, await c.CallAsync("EXISTS", key));

        RespAssert.Ok(await c.CallAsync("SET", key, "string now"));
        RespAssert.SimpleString("string", await c.CallAsync("TYPE", key));
        var other = Key();
        var third = Key();
        RespAssert.Integer(2, await c.CallAsync("HSET", other, "f", "1", "g", "2"));
        RespAssert.Integer(1, await c.CallAsync("HSET", third, "f", "1"));
        RespAssert.Integer(2, await c.CallAsync("UNLINK", key, other));
        RespAssert.Integer(1, await c.CallAsync("DEL", third));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", key, other, third));
    }

    [Fact]
    public async Task Hscan_returns_every_matching_field_in_one_page()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var key = Key();
        RespAssert.Integer(3, await c.CallAsync("HSET", key, "user:1", "a", "user:2", "b", "other", "c"));

        var page = await c.CallAsync("HSCAN", key, "0", "MATCH", "user:*", "COUNT", "1");

        RespAssert.Bulk("0", page.Items[0]);
        Assert.Equal(["user:1", "a", "user:2", "b"], RespAssert.Strings(page.Items[1]));
        Assert.Equal(["other"], RespAssert.Strings((await c.CallAsync("HSCAN", key, "0", "MATCH", "o*", "NOVALUES")).Items[1]));
        RespAssert.Error("ERR invalid cursor", await c.CallAsync("HSCAN", key, "x"));
        RespAssert.Error("ERR syntax error", await c.CallAsync("HSCAN", key, "0", "BOGUS"));
    }

    [Theory]
    [InlineData("hash")]
    [InlineData("string")]
    [InlineData("list")]
    public async Task Scan_type_finds_only_keys_of_that_type(string type)
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var prefix = Key();
        RespAssert.Integer(1, await c.CallAsync("HSET", prefix + ":h", "f", "1"));
        RespAssert.Ok(await c.CallAsync("SET", prefix + ":s", "1"));

        var found = new List<string>();
        var cursor = "0";
        do
        {
            var page = await c.CallAsync("SCAN", cursor, "MATCH", prefix + ":*", "COUNT", "1000", "TYPE", type);
            cursor = page.Items[0].AsString()!;
            found.AddRange(RespAssert.Strings(page.Items[1]));
        }
        while (cursor != "0");

        Assert.Equal(type switch { "hash" => [prefix + ":h"], "string" => [prefix + ":s"], _ => Array.Empty<string>() }, found);
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Hrandfield_picks_distinct_fields_for_a_positive_count_and_repeats_for_a_negative_one(int protocol)
    {
        await using var c = await fixture.Silo.ConnectAsync(protocol);
        var key = Key();
        RespAssert.Integer(3, await c.CallAsync("HSET", key, "a", "1", "b", "2", "c", "3"));
        string[] fields = ["a", "b", "c"];

        Assert.Contains((await c.CallAsync("HRANDFIELD", key)).AsString(), fields);
        var distinct = RespAssert.Strings(await c.CallAsync("HRANDFIELD", key, "10"));
        Assert.Equal(fields, distinct.Order());
        var repeated = RespAssert.Strings(await c.CallAsync("HRANDFIELD", key, "-7"));
        Assert.Equal(7, repeated.Length);
        Assert.All(repeated, field => Assert.Contains(field, fields));
        Assert.Empty((await c.CallAsync("HRANDFIELD", key, "0")).Items);

        var withValues = await c.CallAsync("HRANDFIELD", key, "2", "WITHVALUES");
        var pairs = protocol == 3
            ? withValues.Items.Select(static pair => (pair.Items[0].AsString()!, pair.Items[1].AsString()!)).ToArray()
            : withValues.Items.Chunk(2).Select(static pair => (pair[0].AsString()!, pair[1].AsString()!)).ToArray();
        Assert.Equal(2, pairs.Length);
        Assert.All(pairs, pair => Assert.Equal(((char)(pair.Item1[0] - 'a' + '1')).ToString(), pair.Item2));

        SiloClients.AssertNull(await c.CallAsync("HRANDFIELD", Key()), protocol);
        Assert.Empty((await c.CallAsync("HRANDFIELD", Key(), "5")).Items);
        RespAssert.Error("ERR syntax error", await c.CallAsync("HRANDFIELD", key, "1", "WITHSCORES"));
        RespAssert.Error("ERR value is out of range", await c.CallAsync("HRANDFIELD", key, long.MinValue.ToString(System.Globalization.CultureInfo.InvariantCulture)));
    }

    [Theory]
    [InlineData("HSET", "k", "f")]
    [InlineData("HMSET", "k", "f", "v", "g")]
    [InlineData("HGET", "k")]
    [InlineData("HDEL", "k")]
    [InlineData("HINCRBY", "k", "f")]
    public async Task Wrong_argument_counts_are_refused_with_redis_text(params string[] command)
    {
        await using var c = await fixture.Silo.ConnectAsync();

        RespAssert.Error($"ERR wrong number of arguments for '{command[0].ToLowerInvariant()}' command", await c.CallAsync([.. command]));
    }
}
