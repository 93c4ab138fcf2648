using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>Connecting in either protocol, unique keys, and assertions whose expected wire type depends on the protocol.</summary>
internal static class SiloClients
{
    /// <summary>Connects and sends <c>HELLO protocol</c>, so the connection speaks RESP2 or RESP3 from then on.</summary>
    public static async Task<RespTestClient> ConnectAsync(this TestSilo silo, int protocol)
    {
        var client = await silo.ConnectAsync();
        var hello = await client.CallAsync("HELLO", protocol);
        Assert.Equal(protocol == 3 ? RespType.Map : RespType.Array, hello.Type);
        return client;
    }

    public static string UniqueKey(string prefix) => $"{prefix}:{Guid.NewGuid():N}";

    /// <summary>The null reply: <c>_</c> in RESP3, <c>$-1</c> in RESP2.</summary>
    public static void AssertNull(RespValue reply, int protocol)
    {
        Assert.True(reply.IsNull, $"expected null but got {reply}");
        Assert.Equal(protocol == 3 ? RespType.Null : RespType.BulkString, reply.Type);
    }

    /// <summary>A map reply: <c>%</c> in RESP3; in RESP2 a flat array of keys and values.</summary>
    public static Dictionary<string, RespValue> AssertMap(RespValue reply, int protocol)
    {
        Assert.Equal(protocol == 3 ? RespType.Map : RespType.Array, reply.Type);
        Assert.True(reply.Items.Count % 2 == 0, $"a map has pairs, got {reply}");
        var map = new Dictionary<string, RespValue>(StringComparer.Ordinal);
        for (var i = 0; i < reply.Items.Count; i += 2)
        {
            map.Add(reply.Items[i].AsString()!, reply.Items[i + 1]);
        }

        return map;
    }

    /// <summary>A text reply such as INFO's: verbatim <c>txt</c> in RESP3, a bulk string in RESP2.</summary>
    public static string AssertText(RespValue reply, int protocol)
    {
        if (protocol == 3)
        {
            Assert.Equal(RespType.VerbatimString, reply.Type);
            Assert.Equal("txt", reply.VerbatimFormat);
        }
        else
        {
            Assert.Equal(RespType.BulkString, reply.Type);
        }

        return reply.AsString()!;
    }

    /// <summary>INFO's <c>field:value</c> lines.</summary>
    public static Dictionary<string, string> InfoFields(string info)
    {
        var fields = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var line in info.Split("\r\n"))
        {
            var colon = line.IndexOf(':', StringComparison.Ordinal);
            if (line.Length > 0 && line[0] != '#' && colon > 0)
            {
                fields[line[..colon]] = line[(colon + 1)..];
            }
        }

        return fields;
    }

    public static void AssertError(string expected, RespValue reply)
    {
        Assert.True(reply.Type == RespType.Error, $"expected error \"{expected}\" but got {reply}");
        Assert.Equal(expected, reply.AsString());
    }

    public static long UnixMilliseconds(this FakeTimeProvider time) => time.GetUtcNow().ToUnixTimeMilliseconds();

    public static long UnixSeconds(this FakeTimeProvider time) => time.GetUtcNow().ToUnixTimeSeconds();

    /// <summary>Splits a space-separated list of arguments written in a test's inline data.</summary>
    public static string[] Words(string text) => text.Split(' ', StringSplitOptions.RemoveEmptyEntries);
}
