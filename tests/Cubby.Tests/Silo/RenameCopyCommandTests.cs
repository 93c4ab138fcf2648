using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>RENAME, RENAMENX and COPY against Redis 7's replies (each checked against a real redis-server 7.0).</summary>
public sealed class RenameCopyCommandTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private static string Key() => SiloClients.UniqueKey("copy");

    [Fact]
    public async Task Rename_moves_the_value_and_its_expiry_and_replaces_the_destination_of_any_type()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        string source = Key(), destination = Key();
        RespAssert.Ok(await c.CallAsync("SET", source, "v", "EX", "1000"));
        RespAssert.Integer(1, await c.CallAsync("HSET", destination, "f", "old"));

        RespAssert.Ok(await c.CallAsync("RENAME", source, destination));

        RespAssert.Integer(0, await c.CallAsync("EXISTS", source));
        RespAssert.Bulk("v", await c.CallAsync("GET", destination));
        RespAssert.SimpleString("string", await c.CallAsync("TYPE", destination));
        Assert.InRange((await c.CallAsync("TTL", destination)).Integer, 990, 1000);
    }

    [Fact]
    public async Task Rename_of_a_missing_key_is_an_error_and_of_a_key_onto_itself_is_ok()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var key = Key();

        RespAssert.Error("ERR no such key", await c.CallAsync("RENAME", key, Key()));
        RespAssert.Error("ERR no such key", await c.CallAsync("RENAMENX", key, Key()));
        RespAssert.Error("ERR no such key", await c.CallAsync("RENAME", key, key));
        RespAssert.Ok(await c.CallAsync("SET", key, "v"));
        RespAssert.Ok(await c.CallAsync("RENAME", key, key));
        RespAssert.Integer(0, await c.CallAsync("RENAMENX", key, key));
        RespAssert.Bulk("v", await c.CallAsync("GET", key));
    }

    [Fact]
    public async Task Renamenx_leaves_both_keys_alone_when_the_destination_exists()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        string source = Key(), destination = Key(), free = Key();
        RespAssert.Ok(await c.CallAsync("MSET", source, "a", destination, "b"));

        RespAssert.Integer(0, await c.CallAsync("RENAMENX", source, destination));
        Assert.Equal(["a", "b"], RespAssert.Strings(await c.CallAsync("MGET", source, destination)));

        RespAssert.Integer(1, await c.CallAsync("RENAMENX", source, free));
        Assert.Equal(["(nil)", "a"], RespAssert.Strings(await c.CallAsync("MGET", source, free)));
    }

    [Fact]
    public async Task Rename_carries_a_hash_whole()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        string source = Key(), destination = Key();
        RespAssert.Integer(2, await c.CallAsync("HSET", source, "f1", "v1", "f2", "v2"));

        RespAssert.Ok(await c.CallAsync("RENAME", source, destination));

        Assert.Equal(["f1", "v1", "f2", "v2"], RespAssert.Strings(await c.CallAsync("HGETALL", destination)));
        RespAssert.SimpleString("hash", await c.CallAsync("TYPE", destination));
        RespAssert.Integer(-1, await c.CallAsync("TTL", destination));
    }

    [Fact]
    public async Task Copy_keeps_the_source_and_replaces_only_when_asked()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        string source = Key(), destination = Key();
        RespAssert.Ok(await c.CallAsync("SET", source, "new", "PX", "500000"));
        RespAssert.Ok(await c.CallAsync("SET", destination, "old"));

        RespAssert.Integer(0, await c.CallAsync("COPY", source, destination));
        RespAssert.Bulk("old", await c.CallAsync("GET", destination));
        RespAssert.Integer(1, await c.CallAsync("COPY", source, destination, "REPLACE"));
        RespAssert.Bulk("new", await c.CallAsync("GET", destination));
        RespAssert.Bulk("new", await c.CallAsync("GET", source));
        Assert.InRange((await c.CallAsync("PTTL", destination)).Integer, 490_000, 500_000);
        RespAssert.Integer(1, await c.CallAsync("COPY", source, Key(), "DB", "0"));
        RespAssert.Integer(0, await c.CallAsync("COPY", Key(), Key()));
    }

    [Theory]
    [InlineData(new[] { "DB", "1" }, "ERR DB index is out of range")]
    [InlineData(new[] { "DB", "x" }, "ERR value is not an integer or out of range")]
    [InlineData(new[] { "DB" }, "ERR syntax error")]
    [InlineData(new[] { "FOO" }, "ERR syntax error")]
    public async Task Copy_rejects_bad_options(string[] options, string error)
    {
        await using var c = await fixture.Silo.ConnectAsync();
        string source = Key(), destination = Key();
        RespAssert.Ok(await c.CallAsync("SET", source, "v"));

        RespAssert.Error(error, await c.CallAsync(["COPY", source, destination, .. options]));
        RespAssert.Integer(0, await c.CallAsync("EXISTS", destination));
    }

    [Fact]
    public async Task Copy_onto_itself_is_an_error_and_arity_is_checked()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        var key = Key();

        RespAssert.Error("ERR source and destination objects are the same", await c.CallAsync("COPY", key, key));
        RespAssert.Error("ERR wrong number of arguments for 'rename' command", await c.CallAsync("RENAME", key));
        RespAssert.Error("ERR wrong number of arguments for 'copy' command", await c.CallAsync("COPY", key));
    }

    [Fact]
    public async Task Rename_ends_a_watch_on_either_key()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        string source = Key(), destination = Key();
        RespAssert.Ok(await c.CallAsync("SET", source, "v"));
        await using var other = await fixture.Silo.ConnectAsync();

        RespAssert.Ok(await c.CallAsync("WATCH", destination));
        RespAssert.Ok(await other.CallAsync("RENAME", source, destination));
        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("GET", destination));
        Assert.True((await c.CallAsync("EXEC")).IsNull);

        RespAssert.Ok(await c.CallAsync("WATCH", destination));
        RespAssert.Ok(await other.CallAsync("RENAME", destination, source));
        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("GET", destination));
        Assert.True((await c.CallAsync("EXEC")).IsNull);
    }

    [Fact]
    public async Task Rename_and_copy_run_inside_a_transaction()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        string a = Key(), b = Key(), d = Key();
        RespAssert.Ok(await c.CallAsync("SET", a, "1"));

        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("RENAME", a, b));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("COPY", b, d));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("RENAME", a, b));
        var replies = await c.CallAsync("EXEC");

        Assert.Equal(RespType.SimpleString, replies.Items[0].Type);
        RespAssert.Integer(1, replies.Items[1]);
        RespAssert.Error("ERR no such key", replies.Items[2]);
        Assert.Equal(["(nil)", "1", "1"], RespAssert.Strings(await c.CallAsync("MGET", a, b, d)));
    }
}
