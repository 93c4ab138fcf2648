using System.Net.Sockets;
using System.Text;
using Cubby.Resp;
using Cubby.Tests.Infrastructure;
using static Cubby.Tests.Silo.Wire;

namespace Cubby.Tests.Silo;

public sealed class ProtocolTests
{
    [Theory]
    [InlineData("*-10\r\n")]
    [InlineData("*-1\r\n")]
    [InlineData("*0\r\n")]
    public async Task A_zero_or_negative_multibulk_count_is_an_empty_command_and_the_connection_goes_on(string header)
    {
        await using var silo = await TestSilo.StartAsync();
        await using var client = await silo.ConnectAsync();

        await client.SendRawAsync([.. Encoding.ASCII.GetBytes(header), .. RespTestClient.Encode("PING")]);

        RespAssert.SimpleString("PONG", await client.ReadAsync());
    }

    [Fact]
    public async Task A_thousand_pipelined_commands_in_one_write_are_answered_in_order()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var client = await silo.ConnectAsync();

        // 1 KiB values make the replies outgrow the silo's early-flush threshold, so the batch is paused and resumed.
        var value = new string('v', 1000);
        const int Commands = 1000;
        var pipeline = new List<byte>();
        for (var i = 0; i < Commands; i++)
        {
            pipeline.AddRange(RespTestClient.Encode(Command(i, value)));
        }

        // Replies are read while the pipeline is still being written, as a real client must, or both sides could stall.
        var reading = ReadRepliesAsync(client, Commands);
        await client.SendRawAsync([.. pipeline]);
        var replies = await reading;

        for (var i = 0; i < Commands; i++)
        {
            var reply = replies[i];
            switch (i % 4)
            {
                case 0:
                    RespAssert.Ok(reply);
                    break;
                case 1:
                    RespAssert.Bulk($"{value}:{i - 1}", reply);
                    break;
                case 2:
                    RespAssert.Integer((i / 4) + 1, reply);
                    break;
                default:
                    RespAssert.Bulk($"echo:{i}", reply);
                    break;
            }
        }

        RespAssert.Bulk($"{Commands / 4}", await client.CallAsync("GET", "pipe:counter"));

        static object[] Command(int i, string value) => (i % 4) switch
        {
            0 => ["SET", $"pipe:{i}", $"{value}:{i}"],
            1 => ["GET", $"pipe:{i - 1}"],
            2 => ["INCR", "pipe:counter"],
            _ => ["ECHO", $"echo:{i}"],
        };
    }

    [Fact]
    public async Task Connections_pipelining_at_once_each_get_every_reply_in_order()
    {
        // Several pipelining connections move their batches off the socket event thread (PipelinedConnections), so
        // their commands run on two threads at once: replies must still come back whole and in each connection's order,
        // and a counter all of them increment must lose no increment.
        await using var silo = await TestSilo.StartAsync();
        const int Connections = 6;
        const int Rounds = 40;
        const int Depth = 16;
        await Task.WhenAll(Enumerable.Range(0, Connections).Select(async connection =>
        {
            await using var client = await silo.ConnectAsync();
            for (var round = 0; round < Rounds; round++)
            {
                var pipeline = new List<byte>();
                for (var i = 0; i < Depth; i++)
                {
                    pipeline.AddRange(RespTestClient.Encode(Command(connection, round, i)));
                }

                var reading = ReadRepliesAsync(client, Depth);
                await client.SendRawAsync([.. pipeline]);
                var replies = await reading;
                for (var i = 0; i < Depth; i++)
                {
                    switch (i % 4)
                    {
                        case 0:
                            RespAssert.Ok(replies[i]);
                            break;
                        case 1:
                            RespAssert.Bulk($"{connection}:{round}:{i - 1}", replies[i]);
                            break;
                        case 2:
                            Assert.Equal(RespType.Integer, replies[i].Type);
                            break;
                        default:
                            RespAssert.Bulk($"echo:{connection}:{round}:{i}", replies[i]);
                            break;
                    }
                }
            }
        }));

        await using var reader = await silo.ConnectAsync();
        RespAssert.Bulk($"{Connections * Rounds * Depth / 4}", await reader.CallAsync("GET", "pipes:counter"));

        static object[] Command(int connection, int round, int i) => (i % 4) switch
        {
            0 => ["SET", $"pipes:{connection}:{i}", $"{connection}:{round}:{i}"],
            1 => ["GET", $"pipes:{connection}:{i - 1}"],
            2 => ["INCR", "pipes:counter"],
            _ => ["ECHO", $"echo:{connection}:{round}:{i}"],
        };
    }

    [Fact]
    public async Task Pipelined_resp_and_inline_commands_mixed_in_one_write_are_answered_in_order()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var client = await silo.ConnectAsync();

        var bytes = Concat(
            RespTestClient.Encode("SET", "mixed", "1"),
            Ascii("INCR mixed\r\n"),
            RespTestClient.Encode("GET", "mixed"),
            Ascii("PING\r\n\r\n   \r\nECHO \"two words\"\r\n"),
            RespTestClient.Encode("DEL", "mixed"));
        await client.SendRawAsync(bytes);

        RespAssert.Ok(await client.ReadAsync());
        RespAssert.Integer(2, await client.ReadAsync());
        RespAssert.Bulk("2", await client.ReadAsync());
        RespAssert.SimpleString("PONG", await client.ReadAsync());
        RespAssert.Bulk("two words", await client.ReadAsync());
        RespAssert.Integer(1, await client.ReadAsync());
        RespAssert.SimpleString("PONG", await client.CallAsync("PING"));
    }

    [Fact]
    public async Task A_command_sent_one_byte_per_write_is_answered_once_when_whole()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var client = await silo.ConnectAsync();

        // A RESP command, then an inline one split between its CR and LF, then another RESP command.
        var bytes = Concat(
            RespTestClient.Encode("SET", "split:key", "hello\r\nworld"),
            Ascii("PING\r\n"),
            RespTestClient.Encode("APPEND", "split:key", "!"));
        foreach (var b in bytes)
        {
            await client.SendRawAsync([b]);
        }

        RespAssert.Ok(await client.ReadAsync());
        RespAssert.SimpleString("PONG", await client.ReadAsync());
        RespAssert.Integer("hello\r\nworld!".Length, await client.ReadAsync());

        // Had any fragment been answered on its own, its reply would come before this one.
        RespAssert.Bulk("hello\r\nworld!", await client.CallAsync("GET", "split:key"));
    }

    [Fact]
    public async Task A_command_split_at_every_position_into_two_writes_is_answered_once()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var client = await silo.ConnectAsync();
        var command = RespTestClient.Encode("SET", "two:part", "payload");

        for (var cut = 1; cut < command.Length; cut++)
        {
            await client.SendRawAsync(command[..cut]);
            await client.SendRawAsync(command[cut..]);
            RespAssert.Ok(await client.ReadAsync());
        }

        RespAssert.Bulk("payload", await client.CallAsync("GET", "two:part"));
    }

    [Fact]
    public async Task Inline_commands_work_like_resp_commands()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var client = await silo.ConnectAsync();

        await client.SendRawAsync(Ascii("PING\r\n"));
        RespAssert.SimpleString("PONG", await client.ReadAsync());

        await client.SendRawAsync(Ascii("SET k v\r\n"));
        RespAssert.Ok(await client.ReadAsync());
        RespAssert.Bulk("v", await client.CallAsync("GET", "k"));

        await client.SendRawAsync(Ascii("set quoted \"a b\\x41\\n\"\n"));
        RespAssert.Ok(await client.ReadAsync());
        RespAssert.Bulk("a bA\n", await client.CallAsync("GET", "quoted"));

        await client.SendRawAsync(Ascii("get k\r\n"));
        RespAssert.Bulk("v", await client.ReadAsync());

        await client.SendRawAsync(Ascii("SET k \"unbalanced\r\n"));
        RespAssert.Error("ERR Protocol error: unbalanced quotes", await client.ReadAsync());
        Assert.True(await client.IsClosedByServerAsync());
    }

    [Fact]
    public async Task Resp2_is_spoken_until_hello_3_switches_to_resp3()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var client = await silo.ConnectAsync();
        await client.CallAsync("SET", "proto:key", "value");

        var missing = await client.CallAsync("GET", "proto:missing");
        Assert.Equal(RespType.BulkString, missing.Type);
        Assert.True(missing.IsNull);
        var config = await client.CallAsync("CONFIG", "GET", "maxmemory-policy");
        Assert.Equal(RespType.Array, config.Type);
        Assert.Equal(["maxmemory-policy", "allkeys-lru"], RespAssert.Strings(config));

        var hello = await client.CallAsync("HELLO", "3");
        Assert.Equal(RespType.Map, hello.Type);
        var fields = MapOf(hello);
        Assert.Equal(3, fields["proto"].Integer);
        Assert.Equal("7.2.0", fields["version"].AsString());

        missing = await client.CallAsync("GET", "proto:missing");
        Assert.Equal(RespType.Null, missing.Type);
        config = await client.CallAsync("CONFIG", "GET", "maxmemory-policy");
        Assert.Equal(RespType.Map, config.Type);
        Assert.Equal(["maxmemory-policy", "allkeys-lru"], RespAssert.Strings(config));
        var mget = await client.CallAsync("MGET", "proto:key", "proto:missing");
        Assert.Equal(RespType.Array, mget.Type);
        RespAssert.Bulk("value", mget.Items[0]);
        Assert.Equal(RespType.Null, mget.Items[1].Type);
        RespAssert.Integer(1, await client.CallAsync("EXISTS", "proto:key"));

        var back = await client.CallAsync("HELLO", "2");
        Assert.Equal(RespType.Array, back.Type);
        Assert.Equal(2, MapOf(back)["proto"].Integer);
        missing = await client.CallAsync("GET", "proto:missing");
        Assert.Equal(RespType.BulkString, missing.Type);
        Assert.True(missing.IsNull);
    }

    [Fact]
    public async Task Hello_with_an_unsupported_version_keeps_the_current_protocol()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var client = await silo.ConnectAsync();

        RespAssert.Error("NOPROTO", await client.CallAsync("HELLO", "4"));
        RespAssert.Error("ERR Protocol version is not an integer", await client.CallAsync("HELLO", "three"));
        var missing = await client.CallAsync("GET", "nothing");
        Assert.Equal(RespType.BulkString, missing.Type);

        Assert.Equal(RespType.Map, (await client.CallAsync("HELLO", "3")).Type);
        RespAssert.Error("NOPROTO", await client.CallAsync("HELLO", "1"));
        Assert.Equal(RespType.Null, (await client.CallAsync("GET", "nothing")).Type);
    }

    [Fact]
    public async Task The_protocol_version_belongs_to_one_connection()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var resp3 = await silo.ConnectAsync();
        await using var resp2 = await silo.ConnectAsync();

        await resp3.CallAsync("HELLO", "3");

        Assert.Equal(RespType.Null, (await resp3.CallAsync("GET", "none")).Type);
        Assert.Equal(RespType.BulkString, (await resp2.CallAsync("GET", "none")).Type);
    }

    [Fact]
    public async Task Quit_answers_ok_then_closes_without_running_what_follows()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var client = await silo.ConnectAsync();
        await using var observer = await silo.ConnectAsync();

        await client.SendRawAsync(Concat(
            RespTestClient.Encode("SET", "quit:before", "1"),
            RespTestClient.Encode("QUIT"),
            RespTestClient.Encode("SET", "quit:after", "1")));

        RespAssert.Ok(await client.ReadAsync());
        RespAssert.Ok(await client.ReadAsync());
        Assert.True(await client.IsClosedByServerAsync());
        RespAssert.Integer(1, await observer.CallAsync("EXISTS", "quit:before"));
        RespAssert.Integer(0, await observer.CallAsync("EXISTS", "quit:after"));
    }

    [Fact]
    public async Task Commands_sent_before_the_client_half_closes_are_all_answered()
    {
        await using var silo = await TestSilo.StartAsync();
        var value = new string('x', 2000);
        const int Commands = 3000;
        var pipeline = new List<byte>();
        pipeline.AddRange(RespTestClient.Encode("SET", "half:value", value));
        for (var i = 0; i < Commands; i++)
        {
            pipeline.AddRange(RespTestClient.Encode("GET", "half:value"));
        }

        using var socket = new Socket(silo.RespEndPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(silo.RespEndPoint);
        await using var stream = new NetworkStream(socket, ownsSocket: false);
        var reading = ReadToEndAsync(stream);
        await stream.WriteAsync(pipeline.ToArray());
        socket.Shutdown(SocketShutdown.Send);

        var replies = await reading.WaitAsync(TimeSpan.FromSeconds(60));

        var expected = new StringBuilder("+OK\r\n");
        for (var i = 0; i < Commands; i++)
        {
            expected.Append("$2000\r\n").Append(value).Append("\r\n");
        }

        Assert.Equal(expected.Length, replies.Length);
        Assert.True(expected.ToString() == Encoding.ASCII.GetString(replies), "the replies differ from one +OK and 3000 values");
    }

    private static Dictionary<string, RespValue> MapOf(RespValue reply)
    {
        var map = new Dictionary<string, RespValue>();
        for (var i = 0; i + 1 < reply.Items.Count; i += 2)
        {
            map[reply.Items[i].AsString()!] = reply.Items[i + 1];
        }

        return map;
    }
}
