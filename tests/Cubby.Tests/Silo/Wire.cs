using System.Diagnostics;
using System.Text;
using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>Small helpers for tests that talk to a silo byte by byte.</summary>
internal static class Wire
{
    public static byte[] Ascii(string text) => Encoding.ASCII.GetBytes(text);

    public static byte[] Concat(params byte[][] parts) => parts.SelectMany(part => part).ToArray();

    /// <summary>Reads <paramref name="count"/> replies; start it before writing a long pipeline so neither side stalls.</summary>
    public static async Task<List<RespValue>> ReadRepliesAsync(RespTestClient client, int count)
    {
        var replies = new List<RespValue>(count);
        for (var i = 0; i < count; i++)
        {
            replies.Add(await client.ReadAsync());
        }

        return replies;
    }

    public static async Task<byte[]> ReadToEndAsync(Stream stream)
    {
        using var received = new MemoryStream();
        await stream.CopyToAsync(received);
        return received.ToArray();
    }

    /// <summary>The connections the silo is serving, as CLIENT LIST reports them.</summary>
    public static async Task<int> ClientCountAsync(RespTestClient client)
    {
        var list = (await client.CallAsync("CLIENT", "LIST")).AsString() ?? string.Empty;
        return list.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length;
    }

    /// <summary>Polls CLIENT LIST until the silo serves exactly <paramref name="expected"/> connections, or fails.</summary>
    public static async Task WaitForClientCountAsync(RespTestClient client, int expected, TimeSpan? timeout = null)
    {
        var deadline = Stopwatch.StartNew();
        var limit = timeout ?? TimeSpan.FromSeconds(30);
        int count;
        while ((count = await ClientCountAsync(client)) != expected)
        {
            if (deadline.Elapsed > limit)
            {
                Assert.Fail($"The silo still serves {count} connections after {limit.TotalSeconds:0}s; expected {expected}.");
            }

            await Task.Delay(20);
        }
    }
}
