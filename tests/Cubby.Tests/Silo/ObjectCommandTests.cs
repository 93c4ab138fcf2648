using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>OBJECT's subcommands against Redis 7's replies (checked against a real redis-server 7.0).</summary>
public sealed class ObjectCommandTests
{
    [Theory]
    [InlineData("12345", "int")]
    [InlineData("hello", "embstr")]
    [InlineData("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "raw")]
    public async Task Object_encoding_names_the_string_encoding_Redis_would_use(string value, string encoding)
    {
        await using var silo = await ClockedSilo.StartAsync();
        RespAssert.Ok(await silo.CallAsync("SET", "k", value));

        RespAssert.Bulk(encoding, await silo.CallAsync("OBJECT", "ENCODING", "k"));
    }

    [Fact]
    public async Task Object_encoding_of_a_hash_follows_Redis_listpack_limits()
    {
        await using var silo = await ClockedSilo.StartAsync();
        RespAssert.Integer(2, await silo.CallAsync("HSET", "small", "a", "1", "b", "2"));
        RespAssert.Integer(1, await silo.CallAsync("HSET", "wide", "a", new string('v', 65)));

        RespAssert.Bulk("listpack", await silo.CallAsync("OBJECT", "ENCODING", "small"));
        RespAssert.Bulk("hashtable", await silo.CallAsync("OBJECT", "ENCODING", "wide"));
    }

    [Fact]
    public async Task Object_idletime_counts_seconds_since_the_last_access_and_is_not_an_access_itself()
    {
        await using var silo = await ClockedSilo.StartAsync();
        RespAssert.Ok(await silo.CallAsync("SET", "k", "v"));

        silo.Advance(5_000);
        RespAssert.Integer(5, await silo.CallAsync("OBJECT", "IDLETIME", "k"));
        silo.Advance(2_000);
        RespAssert.Integer(7, await silo.CallAsync("OBJECT", "IDLETIME", "k"));
        RespAssert.Bulk("v", await silo.CallAsync("GET", "k"));
        RespAssert.Integer(0, await silo.CallAsync("OBJECT", "IDLETIME", "k"));
    }

    [Fact]
    public async Task Object_answers_refcount_nil_for_missing_keys_and_errors_as_Redis()
    {
        await using var silo = await ClockedSilo.StartAsync();
        RespAssert.Ok(await silo.CallAsync("SET", "k", "v"));

        RespAssert.Integer(1, await silo.CallAsync("OBJECT", "REFCOUNT", "k"));
        RespAssert.Null(await silo.CallAsync("OBJECT", "ENCODING", "missing"));
        RespAssert.Error("ERR An LFU maxmemory policy is not selected, access frequency not tracked.", await silo.CallAsync("OBJECT", "FREQ", "k"));
        RespAssert.Error("ERR unknown subcommand 'FOO'. Try OBJECT HELP.", await silo.CallAsync("OBJECT", "FOO", "k"));
        RespAssert.Error("ERR wrong number of arguments for 'object|encoding' command", await silo.CallAsync("OBJECT", "ENCODING"));
        RespAssert.Error("ERR wrong number of arguments for 'object|encoding' command", await silo.CallAsync("OBJECT", "ENCODING", "a", "b"));
        Assert.StartsWith("OBJECT <subcommand>", (await silo.CallAsync("OBJECT", "HELP")).Items[0].AsString(), StringComparison.Ordinal);
    }
}
