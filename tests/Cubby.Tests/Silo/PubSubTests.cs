using Cubby.Resp;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using StackExchange.Redis;

namespace Cubby.Tests.Silo;

/// <summary>
/// SUBSCRIBE, PSUBSCRIBE, their UNSUBSCRIBEs, PUBLISH and PUBSUB on one silo: Redis 7's replies and pushes in RESP2 and
/// RESP3, its subscribed context, StackExchange.Redis's subscriber, and a subscriber that stops reading.
/// </summary>
public sealed class PubSubTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private readonly TestSilo _silo = fixture.Silo;

    [Fact]
    public async Task Subscribers_receive_messages_on_their_channels_and_patterns_and_publish_counts_them()
    {
        var channel = SiloClients.UniqueKey("news");
        await using var byName = await _silo.ConnectAsync();
        await using var byPattern = await _silo.ConnectAsync();
        await using var publisher = await _silo.ConnectAsync();

        Assert.Equal(["subscribe", channel, "1"], Strings(await byName.CallAsync("SUBSCRIBE", channel)));
        Assert.Equal(["psubscribe", "news:*", "1"], Strings(await byPattern.CallAsync("PSUBSCRIBE", "news:*")));

        // A connection with the channel and a matching pattern counts twice, as in Redis.
        Assert.Equal(["psubscribe", "news:*", "2"], Strings(await byName.CallAsync("PSUBSCRIBE", "news:*")));
        RespAssert.Integer(3, await publisher.CallAsync("PUBLISH", channel, "hello"));

        Assert.Equal(["message", channel, "hello"], Strings(await byName.ReadAsync()));
        Assert.Equal(["pmessage", "news:*", channel, "hello"], Strings(await byName.ReadAsync()));
        Assert.Equal(["pmessage", "news:*", channel, "hello"], Strings(await byPattern.ReadAsync()));
        RespAssert.Integer(0, await publisher.CallAsync("PUBLISH", SiloClients.UniqueKey("nobody"), "lost"));
    }

    [Fact]
    public async Task Messages_arrive_in_the_order_published_and_binary_payloads_unchanged()
    {
        var channel = SiloClients.UniqueKey("ordered");
        await using var subscriber = await _silo.ConnectAsync();
        await using var publisher = await _silo.ConnectAsync();
        await subscriber.CallAsync("SUBSCRIBE", channel);
        var binary = Enumerable.Range(0, 256).Select(static i => (byte)i).ToArray();

        for (var i = 0; i < 500; i++)
        {
            await publisher.SendAsync("PUBLISH", channel, i.ToString(System.Globalization.CultureInfo.InvariantCulture));
        }

        await publisher.SendAsync("PUBLISH", channel, binary);
        for (var i = 0; i < 501; i++)
        {
            RespAssert.Integer(1, await publisher.ReadAsync());
        }

        for (var i = 0; i < 500; i++)
        {
            Assert.Equal(i.ToString(System.Globalization.CultureInfo.InvariantCulture), (await subscriber.ReadAsync()).Items[2].AsString());
        }

        Assert.Equal(binary, (await subscriber.ReadAsync()).Items[2].Bytes.ToArray());
    }

    [Fact]
    public async Task In_RESP2_a_subscribed_connection_runs_only_pub_sub_commands_ping_and_quit_as_in_Redis()
    {
        await using var c = await _silo.ConnectAsync();
        await c.CallAsync("SUBSCRIBE", "a");
        await c.CallAsync("SUBSCRIBE", "b");

        RespAssert.Error("ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context", await c.CallAsync("GET", "x"));
        RespAssert.Error("ERR Can't execute 'pubsub|numsub': only", await c.CallAsync("PUBSUB", "NUMSUB", "a"));
        Assert.Equal(["pong", ""], Strings(await c.CallAsync("PING")));
        Assert.Equal(["pong", "hi"], Strings(await c.CallAsync("PING", "hi")));

        // UNSUBSCRIBE without channels leaves every one, one confirmation each; with none left, one with a null name.
        var left = new[] { await c.CallAsync("UNSUBSCRIBE"), await c.ReadAsync() }.Select(Strings).ToArray();
        Assert.Equal(["a", "b"], left.Select(static reply => reply[1]).Order());
        Assert.Equal(["1", "0"], left.Select(static reply => reply[2]));
        var none = await c.CallAsync("UNSUBSCRIBE");
        Assert.Equal(RespType.Array, none.Type);
        Assert.Equal("unsubscribe", none.Items[0].AsString());
        Assert.True(none.Items[1].IsNull);
        RespAssert.Integer(0, none.Items[2]);
        Assert.Equal(["punsubscribe", "(nil)", "0"], Strings(await c.CallAsync("PUNSUBSCRIBE")));

        // Out of the subscribed context again.
        RespAssert.SimpleString("PONG", await c.CallAsync("PING"));
        RespAssert.Null(await c.CallAsync("GET", SiloClients.UniqueKey("absent")));
    }

    [Fact]
    public async Task In_RESP3_confirmations_and_messages_are_pushes_and_any_command_runs_while_subscribed()
    {
        var channel = SiloClients.UniqueKey("resp3");
        await using var subscriber = await _silo.ConnectAsync(3);
        await using var publisher = await _silo.ConnectAsync();

        var confirmation = await subscriber.CallAsync("SUBSCRIBE", channel);
        Assert.Equal(RespType.Push, confirmation.Type);
        Assert.Equal(["subscribe", channel, "1"], Strings(confirmation));
        var key = SiloClients.UniqueKey("while-subscribed");
        RespAssert.Ok(await subscriber.CallAsync("SET", key, "v"));
        RespAssert.Bulk("v", await subscriber.CallAsync("GET", key));

        RespAssert.Integer(1, await publisher.CallAsync("PUBLISH", channel, "pushed"));
        var message = await subscriber.ReadAsync();
        Assert.Equal(RespType.Push, message.Type);
        Assert.Equal(["message", channel, "pushed"], Strings(message));
    }

    [Fact]
    public async Task Pubsub_channels_numsub_and_numpat_describe_the_subscriptions_and_forget_closed_connections()
    {
        var prefix = SiloClients.UniqueKey("q");
        await using var asker = await _silo.ConnectAsync();
        var subscriber = await _silo.ConnectAsync();
        await subscriber.CallAsync("SUBSCRIBE", $"{prefix}:1");
        await subscriber.CallAsync("SUBSCRIBE", $"{prefix}:2");
        await subscriber.CallAsync("PSUBSCRIBE", $"{prefix}:*");
        var patternsBefore = (await asker.CallAsync("PUBSUB", "NUMPAT")).Integer;

        Assert.Equal([$"{prefix}:1", $"{prefix}:2"], Strings(await asker.CallAsync("PUBSUB", "CHANNELS", $"{prefix}:*")).Order());
        Assert.Equal([$"{prefix}:1", "1", $"{prefix}:3", "0"], Strings(await asker.CallAsync("PUBSUB", "NUMSUB", $"{prefix}:1", $"{prefix}:3")));
        Assert.Empty((await asker.CallAsync("PUBSUB", "NUMSUB")).Items);
        Assert.True(patternsBefore >= 1);
        RespAssert.Error("ERR unknown subcommand 'NOPE'. Try PUBSUB HELP.", await asker.CallAsync("PUBSUB", "NOPE"));
        RespAssert.Error("ERR wrong number of arguments for 'pubsub|numpat' command", await asker.CallAsync("PUBSUB", "NUMPAT", "x"));
        Assert.Contains("NUMSUB [<channel> ...]", Strings(await asker.CallAsync("PUBSUB", "HELP")));

        var listed = (await asker.CallAsync("CLIENT", "LIST")).AsString()!;
        Assert.Contains("sub=2 psub=1", listed);
        var info = SiloClients.InfoFields((await asker.CallAsync("INFO")).AsString()!);
        Assert.True(int.Parse(info["pubsub_channels"], System.Globalization.CultureInfo.InvariantCulture) >= 2, $"pubsub_channels:{info["pubsub_channels"]}");
        Assert.True(int.Parse(info["pubsub_clients"], System.Globalization.CultureInfo.InvariantCulture) >= 1, $"pubsub_clients:{info["pubsub_clients"]}");

        await subscriber.DisposeAsync();
        await Poll.UntilAsync(async () => (await asker.CallAsync("PUBSUB", "CHANNELS", $"{prefix}:*")).Items.Count == 0, what: "the closed connection's channels to go");
        Assert.Equal(patternsBefore - 1, (await asker.CallAsync("PUBSUB", "NUMPAT")).Integer);
    }

    [Theory]
    [InlineData(RedisProtocol.Resp2)]
    [InlineData(RedisProtocol.Resp3)]
    public async Task StackExchange_Redis_subscribers_receive_what_another_connection_publishes(RedisProtocol protocol)
    {
        var channel = SiloClients.UniqueKey("se");
        await using var subscriberConnection = await ConnectAsync(protocol);
        await using var publisherConnection = await ConnectAsync(protocol);
        var byPattern = new List<string>();
        var subscriber = subscriberConnection.GetSubscriber();

        // A message queue keeps the order the silo sent them in; handlers may run concurrently.
        var byName = await subscriber.SubscribeAsync(RedisChannel.Literal(channel));
        await subscriber.SubscribeAsync(RedisChannel.Pattern($"{channel}*"), (from, message) => { lock (byPattern) { byPattern.Add($"{from}={message}"); } });

        for (var i = 0; i < 20; i++)
        {
            Assert.Equal(2, await publisherConnection.GetSubscriber().PublishAsync(RedisChannel.Literal(channel), $"m{i}"));
        }

        for (var i = 0; i < 20; i++)
        {
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            Assert.Equal($"m{i}", (await byName.ReadAsync(timeout.Token)).Message.ToString());
        }

        await Poll.UntilAsync(() => { lock (byPattern) { return byPattern.Count == 20; } }, what: "20 messages by pattern");
        lock (byPattern)
        {
            Assert.Equal(Enumerable.Range(0, 20).Select(i => $"{channel}=m{i}").Order(), byPattern.Order());
        }

        await subscriber.UnsubscribeAsync(RedisChannel.Literal(channel));
        Assert.Equal(1, await publisherConnection.GetSubscriber().PublishAsync(RedisChannel.Literal(channel), "after"));
    }

    private Task<ConnectionMultiplexer> ConnectAsync(RedisProtocol protocol) =>
        ConnectionMultiplexer.ConnectAsync(new ConfigurationOptions
        {
            EndPoints = { { "127.0.0.1", _silo.RespEndPoint.Port } },
            Protocol = protocol,
            AbortOnConnectFail = true,
            ConnectTimeout = 10_000,
        });

    private static string[] Strings(RespValue reply) => RespAssert.Strings(reply);
}
