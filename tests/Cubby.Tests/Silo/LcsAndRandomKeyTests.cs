using System.Globalization;
using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>LCS and RANDOMKEY against Redis 7's replies (each checked against a real redis-server 7.0).</summary>
public sealed class LcsAndRandomKeyTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private static string Key() => SiloClients.UniqueKey("lcs");

    [Theory]
    [InlineData(new string[0], "mytext")]
    [InlineData(new[] { "LEN" }, "6")]
    [InlineData(new[] { "IDX" }, "[matches,[[[4,7],[5,8]],[[2,3],[0,1]]],len,6]")]
    [InlineData(new[] { "IDX", "MINMATCHLEN", "4" }, "[matches,[[[4,7],[5,8]]],len,6]")]
    [InlineData(new[] { "IDX", "WITHMATCHLEN" }, "[matches,[[[4,7],[5,8],4],[[2,3],[0,1],2]],len,6]")]
    [InlineData(new[] { "IDX", "MINMATCHLEN", "-5", "WITHMATCHLEN" }, "[matches,[[[4,7],[5,8],4],[[2,3],[0,1],2]],len,6]")]
    public async Task Lcs_answers_the_subsequence_its_length_or_its_ranges(string[] options, string expected)
    {
        await using var c = await fixture.Silo.ConnectAsync();
        string a = Key(), b = Key();
        RespAssert.Ok(await c.CallAsync("MSET", a, "ohmytext", b, "mynewtext"));

        Assert.Equal(expected, Shape(await c.CallAsync(["LCS", a, b, .. options])));
    }

    [Fact]
    public async Task Lcs_answers_a_map_in_resp3_and_treats_missing_keys_as_empty()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        await c.CallAsync("HELLO", "3");
        string a = Key(), b = Key();
        RespAssert.Ok(await c.CallAsync("MSET", a, "ohmytext", b, "mynewtext"));

        var reply = await c.CallAsync("LCS", a, b, "IDX");
        Assert.Equal(RespType.Map, reply.Type);
        Assert.Equal("[matches,[[[4,7],[5,8]],[[2,3],[0,1]]],len,6]", Shape(reply));
        RespAssert.Bulk("", await c.CallAsync("LCS", a, Key()));
        RespAssert.Integer(0, await c.CallAsync("LCS", Key(), Key(), "LEN"));
    }

    [Theory]
    [InlineData(new[] { "LEN", "IDX" }, "ERR If you want both the length and indexes, please just use IDX.")]
    [InlineData(new[] { "FOO" }, "ERR syntax error")]
    [InlineData(new[] { "MINMATCHLEN" }, "ERR syntax error")]
    [InlineData(new[] { "MINMATCHLEN", "x" }, "ERR value is not an integer or out of range")]
    public async Task Lcs_rejects_bad_options(string[] options, string error)
    {
        await using var c = await fixture.Silo.ConnectAsync();

        RespAssert.Error(error, await c.CallAsync(["LCS", Key(), Key(), .. options]));
    }

    [Fact]
    public async Task Lcs_of_a_hash_is_an_error_before_a_bad_option()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        string hash = Key(), text = Key();
        RespAssert.Integer(1, await c.CallAsync("HSET", hash, "f", "v"));
        RespAssert.Ok(await c.CallAsync("SET", text, "v"));

        RespAssert.Error("ERR The specified keys must contain string values", await c.CallAsync("LCS", text, hash));
        RespAssert.Error("ERR The specified keys must contain string values", await c.CallAsync("LCS", hash, text, "FOO"));
    }

    [Fact]
    public async Task Lcs_refuses_a_table_larger_than_the_value_limit()
    {
        await using var silo = await ClockedSilo.StartAsync(configure: static options => options.MaxValueBytes = 4096);
        RespAssert.Ok(await silo.CallAsync("MSET", "a", new string('x', 100), "b", new string('x', 100), "c", new string('x', 30), "d", new string('x', 30)));

        RespAssert.Error("ERR Insufficient memory, transient memory for LCS exceeds 4096 bytes (Cubby:MaxValueBytes)", await silo.CallAsync("LCS", "a", "b"));
        RespAssert.Error("ERR Insufficient memory", await silo.CallAsync("LCS", "a", "b", "LEN"));
        RespAssert.Integer(30, await silo.CallAsync("LCS", "c", "d", "LEN"));
    }

    [Fact]
    public async Task Randomkey_answers_nil_for_an_empty_keyspace_and_skips_expired_keys()
    {
        await using var silo = await ClockedSilo.StartAsync();
        RespAssert.Null(await silo.CallAsync("RANDOMKEY"));
        RespAssert.Ok(await silo.CallAsync("SET", "short", "v", "PX", "100"));
        RespAssert.Ok(await silo.CallAsync("SET", "x", "10"));
        RespAssert.Integer(1, await silo.CallAsync("DEL", "x"));

        silo.Advance(200);

        RespAssert.Null(await silo.CallAsync("RANDOMKEY"));
    }

    [Fact]
    public async Task Randomkey_finds_every_key_in_time()
    {
        await using var silo = await ClockedSilo.StartAsync();
        var keys = Enumerable.Range(0, 5).Select(static i => "random:" + i.ToString(CultureInfo.InvariantCulture)).ToArray();
        RespAssert.Ok(await silo.CallAsync(["MSET", .. keys.SelectMany(static key => new object[] { key, "v" })]));
        RespAssert.Integer(1, await silo.CallAsync("HSET", "random:hash", "f", "v"));

        var seen = new HashSet<string>();
        for (var i = 0; i < 2000 && seen.Count < keys.Length + 1; i++)
        {
            var key = (await silo.CallAsync("RANDOMKEY")).AsString()!;
            Assert.True(key.StartsWith("random:", StringComparison.Ordinal), key);
            seen.Add(key);
        }

        Assert.Equal(keys.Length + 1, seen.Count);
    }

    /// <summary>A reply's shape with its scalars: arrays and maps as [a,b], integers and strings as their text.</summary>
    private static string Shape(RespValue reply) => reply.Type switch
    {
        RespType.Integer => reply.Integer.ToString(CultureInfo.InvariantCulture),
        RespType.Array or RespType.Map => "[" + string.Join(',', reply.Items.Select(Shape)) + "]",
        _ => reply.AsString() ?? "(nil)",
    };
}
