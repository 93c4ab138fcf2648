using Cubby.Resp;
using Cubby.Tests.Infrastructure;
using static Cubby.Tests.Silo.Wire;

namespace Cubby.Tests.Silo;

public sealed class BadInputTests
{
    private const int MaxValueBytes = 1024;
    private const int MaxKeyBytes = 64;
    private const int MaxArguments = 16;
    private const long MaxRequestBytes = MaxValueBytes + MaxKeyBytes + 1024;

    [Theory]
    [InlineData("*2\r\n$3\r\nGET\r\n:5\r\n", "ERR Protocol error: expected '$', got ':'")]
    [InlineData("*x\r\n", "ERR Protocol error: invalid multibulk length")]
    [InlineData("*-\r\n", "ERR Protocol error: invalid multibulk length")]
    [InlineData("*1\r\n$x\r\n", "ERR Protocol error: invalid bulk length")]
    [InlineData("*1\r\n$-1\r\n", "ERR Protocol error: invalid bulk length")]
    [InlineData("*1\r\n$4\r\nPINGxx", "ERR Protocol error: expected CRLF after bulk string")]
    [InlineData("*2147483648\r\n", "ERR Protocol error:")]
    [InlineData("*99999999999999999999999\r\n", "ERR Protocol error:")]
    public async Task Malformed_resp_is_a_protocol_error_that_closes_only_that_connection(string garbage, string expected)
    {
        await using var silo = await StartAsync();
        await using var bystander = await silo.ConnectAsync();
        RespAssert.Ok(await bystander.CallAsync("SET", "stored", "intact"));
        await using var offender = await silo.ConnectAsync();

        await offender.SendRawAsync(Ascii(garbage));

        RespAssert.Error(expected, await offender.ReadAsync());
        Assert.True(await offender.IsClosedByServerAsync());
        RespAssert.Bulk("intact", await bystander.CallAsync("GET", "stored"));
        RespAssert.Ok(await bystander.CallAsync("SET", "after", "1"));
        RespAssert.Bulk("1", await bystander.CallAsync("GET", "after"));
    }

    [Fact]
    public async Task Replies_to_commands_before_a_protocol_error_are_sent_before_the_error()
    {
        await using var silo = await StartAsync();
        await using var client = await silo.ConnectAsync();

        await client.SendRawAsync(Concat(
            RespTestClient.Encode("SET", "a", "1"),
            RespTestClient.Encode("INCR", "a"),
            Ascii("*x\r\n"),
            RespTestClient.Encode("SET", "never", "1")));

        RespAssert.Ok(await client.ReadAsync());
        RespAssert.Integer(2, await client.ReadAsync());
        RespAssert.Error("ERR Protocol error: invalid multibulk length", await client.ReadAsync());
        Assert.True(await client.IsClosedByServerAsync());

        await using var observer = await silo.ConnectAsync();
        RespAssert.Bulk("2", await observer.CallAsync("GET", "a"));
        RespAssert.Integer(0, await observer.CallAsync("EXISTS", "never"));
    }

    [Fact]
    public async Task A_bulk_string_outside_an_array_is_read_as_inline_commands_as_redis_does()
    {
        await using var silo = await StartAsync();
        await using var client = await silo.ConnectAsync();

        await client.SendRawAsync(Ascii("$3\r\nabc\r\n"));

        RespAssert.Error("ERR unknown command '$3'", await client.ReadAsync());
        RespAssert.Error("ERR unknown command 'abc'", await client.ReadAsync());
        RespAssert.SimpleString("PONG", await client.CallAsync("PING"));
    }

    [Fact]
    public async Task A_bulk_length_over_the_value_limit_is_rejected_before_the_body_is_sent()
    {
        await using var silo = await StartAsync();
        await using var bystander = await silo.ConnectAsync();
        RespAssert.Ok(await bystander.CallAsync("SET", "stored", "intact"));
        await using var client = await silo.ConnectAsync();

        // The body never follows: the reply can only come from the header.
        await client.SendRawAsync(Ascii("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$999999999\r\n"));

        var reply = await client.ReadAsync();
        RespAssert.Error("ERR Protocol error:", reply);
        Assert.Contains("999999999", reply.AsString(), StringComparison.Ordinal);
        Assert.Contains(MaxValueBytes.ToString(System.Globalization.CultureInfo.InvariantCulture), reply.AsString(), StringComparison.Ordinal);
        Assert.True(await client.IsClosedByServerAsync());
        RespAssert.Integer(0, await bystander.CallAsync("EXISTS", "big"));
        RespAssert.Bulk("intact", await bystander.CallAsync("GET", "stored"));
    }

    [Fact]
    public async Task A_value_one_byte_over_the_limit_is_a_protocol_error_and_one_at_the_limit_is_stored()
    {
        await using var silo = await StartAsync();
        await using var client = await silo.ConnectAsync();
        var atLimit = new string('a', MaxValueBytes);

        RespAssert.Ok(await client.CallAsync("SET", "limit", atLimit));
        RespAssert.Bulk(atLimit, await client.CallAsync("GET", "limit"));
        RespAssert.Error("ERR string exceeds maximum allowed size", await client.CallAsync("APPEND", "limit", "b"));
        RespAssert.Bulk(atLimit, await client.CallAsync("GET", "limit"));

        await client.SendRawAsync(Ascii($"*3\r\n$3\r\nSET\r\n$4\r\nover\r\n${MaxValueBytes + 1}\r\n"));
        RespAssert.Error($"ERR Protocol error: invalid bulk length: {MaxValueBytes + 1} exceeds the limit of {MaxValueBytes}", await client.ReadAsync());
        Assert.True(await client.IsClosedByServerAsync());
    }

    [Fact]
    public async Task An_array_header_over_the_argument_limit_is_rejected_at_once()
    {
        await using var silo = await StartAsync();
        await using var client = await silo.ConnectAsync();

        await client.SendRawAsync(Ascii($"*{MaxArguments + 1}\r\n"));

        RespAssert.Error($"ERR Protocol error: invalid multibulk length: {MaxArguments + 1} exceeds the limit of {MaxArguments}", await client.ReadAsync());
        Assert.True(await client.IsClosedByServerAsync());
    }

    [Fact]
    public async Task A_command_with_exactly_the_most_arguments_is_served()
    {
        await using var silo = await StartAsync();
        await using var client = await silo.ConnectAsync();
        var keys = Enumerable.Range(0, MaxArguments - 1).Select(i => (object)$"k{i}").ToArray();

        RespAssert.Integer(0, await client.CallAsync(["DEL", .. keys]));
    }

    [Fact]
    public async Task A_command_over_the_request_limit_is_rejected_before_its_last_value_is_sent()
    {
        await using var silo = await StartAsync();
        await using var bystander = await silo.ConnectAsync();
        await using var client = await silo.ConnectAsync();
        var value = new string('v', 1000);

        // Each value is within MaxValueBytes, but the third one's header takes the command over MaxRequestBytes.
        var head = RespTestClient.Encode("MSET", "r1", value, "r2", value, "r3", value);
        var cut = head.Length - value.Length - 2;
        await client.SendRawAsync(head[..cut]);

        var reply = await client.ReadAsync();
        RespAssert.Error("ERR Protocol error:", reply);
        Assert.Contains(MaxRequestBytes.ToString(System.Globalization.CultureInfo.InvariantCulture), reply.AsString(), StringComparison.Ordinal);
        Assert.True(await client.IsClosedByServerAsync());
        RespAssert.Integer(0, await bystander.CallAsync("EXISTS", "r1", "r2", "r3"));
    }

    [Fact]
    public async Task An_unterminated_inline_line_over_the_request_limit_is_rejected()
    {
        await using var silo = await StartAsync();
        await using var client = await silo.ConnectAsync();

        await client.SendRawAsync(Ascii("SET k " + new string('x', (int)MaxRequestBytes + 10)));

        var reply = await client.ReadAsync();
        RespAssert.Error("ERR Protocol error:", reply);
        Assert.Contains("Cubby:MaxRequestBytes", reply.AsString(), StringComparison.Ordinal);
        Assert.True(await client.IsClosedByServerAsync());
    }

    [Fact]
    public async Task A_key_over_the_key_limit_is_an_error_and_the_connection_stays_usable()
    {
        await using var silo = await StartAsync();
        await using var client = await silo.ConnectAsync();
        var longKey = new string('k', MaxKeyBytes + 1);
        var longestKey = new string('k', MaxKeyBytes);

        RespAssert.Error($"ERR key is {MaxKeyBytes + 1} bytes, over the limit of {MaxKeyBytes} bytes", await client.CallAsync("SET", longKey, "v"));
        RespAssert.Error($"ERR key is {MaxKeyBytes + 1} bytes", await client.CallAsync("GET", longKey));
        RespAssert.Error($"ERR key is {MaxKeyBytes + 1} bytes", await client.CallAsync("MSET", "fine", "1", longKey, "2"));
        RespAssert.Integer(0, await client.CallAsync("EXISTS", "fine"));

        RespAssert.Ok(await client.CallAsync("SET", longestKey, "v"));
        RespAssert.Bulk("v", await client.CallAsync("GET", longestKey));
    }

    [Theory]
    [InlineData("GET")]
    [InlineData("SET")]
    [InlineData("INCR")]
    [InlineData("APPEND")]
    [InlineData("DEL")]
    [InlineData("EXPIRE")]
    public async Task An_empty_key_is_an_error(string command)
    {
        await using var silo = await StartAsync();
        await using var client = await silo.ConnectAsync();
        object[] arguments = command switch
        {
            "GET" or "INCR" or "DEL" => [command, ""],
            "EXPIRE" => [command, "", "10"],
            _ => [command, "", "v"],
        };

        RespAssert.Error("ERR empty keys are not allowed", await client.CallAsync(arguments));
        RespAssert.Integer(0, await client.CallAsync("DBSIZE"));
        RespAssert.SimpleString("PONG", await client.CallAsync("PING"));
    }

    [Theory]
    [InlineData("ERR value is not an integer or out of range", "INCRBY", "n", "abc")]
    [InlineData("ERR value is not an integer or out of range", "INCRBY", "n", "1.5")]
    [InlineData("ERR value is not an integer or out of range", "INCRBY", "n", " 1")]
    [InlineData("ERR value is not an integer or out of range", "INCRBY", "n", "+1")]
    [InlineData("ERR value is not an integer or out of range", "INCRBY", "n", "01")]
    [InlineData("ERR value is not an integer or out of range", "INCRBY", "n", "9223372036854775808")]
    [InlineData("ERR value is not an integer or out of range", "DECRBY", "n", "")]
    [InlineData("ERR value is not an integer or out of range", "EXPIRE", "n", "ten")]
    [InlineData("ERR value is not an integer or out of range", "SET", "n", "v", "EX", "1e3")]
    [InlineData("ERR value is not an integer or out of range", "GETRANGE", "s", "0", "x")]
    [InlineData("ERR value is not an integer or out of range", "SETRANGE", "s", "-", "x")]
    [InlineData("ERR value is not an integer or out of range", "SELECT", "zero")]
    [InlineData("ERR value is not an integer or out of range", "INCR", "s")]
    [InlineData("ERR value is not a valid float", "INCRBYFLOAT", "n", "one")]
    [InlineData("ERR value is not a valid float", "INCRBYFLOAT", "s", "1")]
    [InlineData("ERR increment or decrement would overflow", "INCRBY", "n", "9223372036854775807")]
    [InlineData("ERR invalid cursor", "SCAN", "abc")]
    [InlineData("ERR offset is out of range", "SETRANGE", "s", "-1", "x")]
    [InlineData("ERR string exceeds maximum allowed size", "SETRANGE", "s", "1024", "x")]
    [InlineData("ERR string exceeds maximum allowed size", "SETRANGE", "s", "9223372036854775807", "x")]
    [InlineData("ERR string exceeds maximum allowed size", "SETRANGE", "s", "9223372036854775000", "x")]
    [InlineData("ERR syntax error", "SCAN", "0", "COUNT", "0")]
    [InlineData("ERR syntax error", "SET", "n", "v", "EX")]
    [InlineData("ERR syntax error", "SET", "n", "v", "NX", "XX")]
    [InlineData("ERR wrong number of arguments for 'get' command", "GET")]
    [InlineData("ERR wrong number of arguments for 'mset' command", "MSET", "a", "1", "b")]
    public async Task Bad_arguments_get_redis_errors_and_change_nothing(string expected, params string[] command)
    {
        await using var silo = await StartAsync();
        await using var client = await silo.ConnectAsync();
        RespAssert.Ok(await client.CallAsync("SET", "n", "5"));
        RespAssert.Ok(await client.CallAsync("SET", "s", "text"));

        RespAssert.Error(expected, await client.CallAsync(command.Cast<object>().ToArray()));

        RespAssert.Bulk("5", await client.CallAsync("GET", "n"));
        RespAssert.Bulk("text", await client.CallAsync("GET", "s"));
        RespAssert.Integer(-1, await client.CallAsync("PTTL", "n"));
        RespAssert.Integer(2, await client.CallAsync("DBSIZE"));
    }

    [Theory]
    [InlineData("set", "SET", "k", "v", "EX", "0")]
    [InlineData("set", "SET", "k", "v", "EX", "-1")]
    [InlineData("set", "SET", "k", "v", "PX", "-100")]
    [InlineData("set", "SET", "k", "v", "EX", "9223372036854775807")]
    [InlineData("set", "SET", "k", "v", "EX", "9223372036854776")]
    [InlineData("set", "SET", "k", "v", "PX", "9223372036854775807")]
    [InlineData("set", "SET", "k", "v", "EXAT", "0")]
    [InlineData("setex", "SETEX", "k", "0", "v")]
    [InlineData("setex", "SETEX", "k", "-5", "v")]
    [InlineData("psetex", "PSETEX", "k", "9223372036854775807", "v")]
    [InlineData("getex", "GETEX", "k", "PX", "0")]
    [InlineData("getex", "GETEX", "k", "EX", "9223372036854775807")]
    [InlineData("expire", "EXPIRE", "k", "9223372036854775807")]
    [InlineData("expire", "EXPIRE", "k", "-9223372036854775808")]
    [InlineData("pexpire", "PEXPIRE", "k", "9223372036854775807")]
    [InlineData("expireat", "EXPIREAT", "k", "9223372036854775807")]
    public async Task Negative_zero_or_overflowing_expiry_is_an_invalid_expire_time(string name, params string[] command)
    {
        await using var silo = await StartAsync();
        await using var client = await silo.ConnectAsync();
        RespAssert.Ok(await client.CallAsync("SET", "k", "before"));

        RespAssert.Error($"ERR invalid expire time in '{name}' command", await client.CallAsync(command.Cast<object>().ToArray()));

        RespAssert.Bulk("before", await client.CallAsync("GET", "k"));
        RespAssert.Integer(-1, await client.CallAsync("PTTL", "k"));
    }

    [Theory]
    [InlineData("EXPIRE", "-1")]
    [InlineData("PEXPIRE", "0")]
    [InlineData("EXPIREAT", "1")]
    [InlineData("PEXPIREAT", "-9223372036854775808")]
    public async Task An_expire_time_in_the_past_deletes_the_key_as_in_redis(string command, string time)
    {
        await using var silo = await StartAsync();
        await using var client = await silo.ConnectAsync();
        RespAssert.Ok(await client.CallAsync("SET", "k", "v"));

        RespAssert.Integer(1, await client.CallAsync(command, "k", time));

        RespAssert.Null(await client.CallAsync("GET", "k"));
        RespAssert.Integer(-2, await client.CallAsync("PTTL", "k"));
    }

    [Fact]
    public async Task A_client_that_disconnects_mid_command_leaves_no_half_written_key()
    {
        await using var silo = await StartAsync();
        await using var bystander = await silo.ConnectAsync();
        RespAssert.Ok(await bystander.CallAsync("SET", "stored", "intact"));

        var full = RespTestClient.Encode("SET", "half:key", new string('h', 800));
        await using (var leaver = await silo.ConnectAsync())
        {
            await leaver.SendRawAsync(full[..(full.Length / 2)]);
            RespAssert.SimpleString("PONG", await bystander.CallAsync("PING"));
        }

        await WaitForClientCountAsync(bystander, 1);
        RespAssert.Integer(0, await bystander.CallAsync("EXISTS", "half:key"));
        RespAssert.Bulk("intact", await bystander.CallAsync("GET", "stored"));
        RespAssert.Ok(await bystander.CallAsync("SET", "half:key", "whole"));
        RespAssert.Bulk("whole", await bystander.CallAsync("GET", "half:key"));
    }

    [Fact]
    public async Task A_client_that_disconnects_with_replies_pending_does_not_disturb_the_silo()
    {
        // Default limits here: the replies (200 x 256 KiB) are far more than the socket buffers hold.
        await using var silo = await TestSilo.StartAsync();
        await using var bystander = await silo.ConnectAsync();
        var value = new string('p', 256 * 1024);
        RespAssert.Ok(await bystander.CallAsync("SET", "pending:big", value));

        var pipeline = Concat(Enumerable.Range(0, 200).Select(_ => RespTestClient.Encode("GET", "pending:big")).ToArray());
        await using (var leaver = await silo.ConnectAsync())
        {
            await leaver.SendRawAsync(pipeline);

            // The first reply proves the silo is busy writing the rest when the client goes.
            RespAssert.Bulk(value, await leaver.ReadAsync());
        }

        await WaitForClientCountAsync(bystander, 1);
        RespAssert.Bulk(value, await bystander.CallAsync("GET", "pending:big"));
        RespAssert.Ok(await bystander.CallAsync("SET", "after", "1"));
        RespAssert.Integer(2, await bystander.CallAsync("DBSIZE"));
    }

    [Fact]
    public async Task A_hundred_garbage_connections_in_a_row_leave_a_healthy_client_unaffected()
    {
        await using var silo = await StartAsync();
        await using var healthy = await silo.ConnectAsync();
        RespAssert.Ok(await healthy.CallAsync("SET", "healthy:counter", "0"));
        var random = new Random(20240611);

        for (var i = 0; i < 100; i++)
        {
            await using (var garbage = await silo.ConnectAsync())
            {
                var (bytes, closesConnection) = Garbage(i, random);
                await garbage.SendRawAsync(bytes);
                if (closesConnection && i % 2 == 0)
                {
                    RespAssert.Error("ERR Protocol error:", await garbage.ReadAsync());
                    Assert.True(await garbage.IsClosedByServerAsync());
                }

                // Odd ones hang up without reading whatever the silo answers.
            }

            RespAssert.Integer(i + 1, await healthy.CallAsync("INCR", "healthy:counter"));
        }

        await WaitForClientCountAsync(healthy, 1);
        RespAssert.Bulk("100", await healthy.CallAsync("GET", "healthy:counter"));
        RespAssert.Integer(1, await healthy.CallAsync("DBSIZE"));
    }

    // Every kind either breaks the protocol or runs no command, so no garbage can change the data.
    private static (byte[] Bytes, bool ClosesConnection) Garbage(int index, Random random)
    {
        var noise = new byte[random.Next(1, 200)];
        random.NextBytes(noise);
        return (index % 5) switch
        {
            0 => (Concat(Ascii("*x"), noise, Ascii("\r\n")), true),
            1 => (Concat(Ascii("*1\r\n$"), Ascii(new string('9', random.Next(20, 40))), Ascii("\r\n")), true),
            2 => (Concat(Ascii("*2\r\n$3\r\nGET\r\n"), [(byte)':'], noise), true),
            3 => (Ascii($"*3\r\n$3\r\nSET\r\n$5\r\nnever\r\n${MaxValueBytes * 1000}\r\n"), true),
            _ => (Concat(Ascii("*3\r\n$3\r\nSET\r\n$5\r\nnever\r\n$100\r\n"), noise[..Math.Min(noise.Length, 99)]), false),
        };
    }

    private static Task<TestSilo> StartAsync() => TestSilo.StartAsync(options =>
    {
        options.MaxValueBytes = MaxValueBytes;
        options.MaxKeyBytes = MaxKeyBytes;
        options.MaxArguments = MaxArguments;
        options.MaxRequestBytes = MaxRequestBytes;
    });
}
