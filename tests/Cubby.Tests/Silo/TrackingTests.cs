using Cubby.Resp;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>
/// CLIENT TRACKING in Redis 7's default mode on one silo: RESP3 invalidation pushes for every kind of change,
/// REDIRECT to a RESP2 subscriber of <c>__redis__:invalidate</c>, OPTIN and OPTOUT, and the commands that report it.
/// </summary>
public sealed class TrackingTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private readonly TestSilo _silo = fixture.Silo;

    [Fact]
    public async Task A_key_read_with_tracking_on_is_invalidated_once_by_its_next_write_delete_or_expiry()
    {
        await using var tracker = await _silo.ConnectAsync(3);
        await using var writer = await _silo.ConnectAsync();
        RespAssert.Ok(await tracker.CallAsync("CLIENT", "TRACKING", "ON"));
        var (written, deleted, expiring, unread) = (Key("w"), Key("d"), Key("e"), Key("u"));
        RespAssert.Ok(await writer.CallAsync("SET", deleted, "x"));
        RespAssert.Ok(await writer.CallAsync("SET", expiring, "x", "PX", "200"));

        await tracker.CallAsync("GET", written);
        await tracker.CallAsync("MGET", deleted, expiring);
        RespAssert.Ok(await writer.CallAsync("SET", unread, "nobody read it"));
        RespAssert.Ok(await writer.CallAsync("SET", written, "1"));
        AssertInvalidated([written], await tracker.ReadAsync());

        // One-shot: a second write is not sent until the key is read again.
        RespAssert.Ok(await writer.CallAsync("SET", written, "2"));
        RespAssert.Integer(1, await writer.CallAsync("DEL", deleted));

        // Expiry removes a key in its shard's own time, before or after the DEL; its reader is told then, as by Redis.
        var pushes = new[] { await tracker.ReadAsync(), await tracker.ReadAsync() };
        Assert.All(pushes, static push => Assert.Equal(RespType.Push, push.Type));
        Assert.Equal(new[] { deleted, expiring }.Order(), pushes.Select(static push => Assert.Single(push.Items[1].Items).AsString()).Order());

        await tracker.CallAsync("GET", written);
        RespAssert.Integer(3, await writer.CallAsync("INCR", written));
        AssertInvalidated([written], await tracker.ReadAsync());
    }

    [Fact]
    public async Task Flushall_sends_every_tracking_connection_a_null_invalidation()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var tracker = await silo.ConnectAsync(3);
        await using var writer = await silo.ConnectAsync();
        RespAssert.Ok(await tracker.CallAsync("CLIENT", "TRACKING", "ON"));
        await tracker.CallAsync("GET", "flushed");

        RespAssert.Ok(await writer.CallAsync("FLUSHALL"));

        var push = await tracker.ReadAsync();
        Assert.Equal(RespType.Push, push.Type);
        Assert.Equal("invalidate", push.Items[0].AsString());
        Assert.True(push.Items[1].IsNull, $"expected a null invalidation, got {push}");
    }

    [Fact]
    public async Task Redirected_invalidations_reach_a_RESP2_subscriber_of_the_invalidate_channel_and_a_closed_target_is_reported()
    {
        var listener = await _silo.ConnectAsync();
        await using var tracker = await _silo.ConnectAsync();
        await using var writer = await _silo.ConnectAsync();
        var listenerId = (await listener.CallAsync("CLIENT", "ID")).Integer;
        await listener.CallAsync("SUBSCRIBE", "__redis__:invalidate");
        RespAssert.Ok(await tracker.CallAsync("CLIENT", "TRACKING", "ON", "REDIRECT", listenerId));
        RespAssert.Integer(listenerId, await tracker.CallAsync("CLIENT", "GETREDIR"));
        var key = Key("redirected");
        await tracker.CallAsync("GET", key);

        RespAssert.Ok(await writer.CallAsync("SET", key, "v"));

        var message = await listener.ReadAsync();
        Assert.Equal(["message", "__redis__:invalidate"], message.Items.Take(2).Select(static item => item.AsString()));
        Assert.Equal([key], message.Items[2].Items.Select(static item => item.AsString()));

        await listener.DisposeAsync();
        await Poll.UntilAsync(async () =>
        {
            await tracker.CallAsync("GET", key);
            RespAssert.Ok(await writer.CallAsync("SET", key, "again"));
            return TrackingFlags(await tracker.CallAsync("CLIENT", "TRACKINGINFO")).Contains("broken_redirect");
        }, what: "the broken redirect to be reported");
    }

    [Fact]
    public async Task A_RESP3_connection_whose_redirect_target_closed_is_pushed_tracking_redir_broken()
    {
        var target = await _silo.ConnectAsync();
        await using var tracker = await _silo.ConnectAsync(3);
        await using var writer = await _silo.ConnectAsync();
        var targetId = (await target.CallAsync("CLIENT", "ID")).Integer;
        RespAssert.Ok(await tracker.CallAsync("CLIENT", "TRACKING", "ON", "REDIRECT", targetId));
        var key = Key("orphaned");
        await tracker.CallAsync("GET", key);
        await target.DisposeAsync();
        await Poll.UntilAsync(async () => (await writer.CallAsync("CLIENT", "LIST")).AsString()!.Split('\n').All(line => !line.StartsWith($"id={targetId} ", StringComparison.Ordinal)), what: "the target to be gone");

        RespAssert.Ok(await writer.CallAsync("SET", key, "v"));

        var push = await tracker.ReadAsync();
        Assert.Equal(RespType.Push, push.Type);
        Assert.Equal("tracking-redir-broken", push.Items[0].AsString());
        RespAssert.Integer(targetId, push.Items[1]);
    }

    [Fact]
    public async Task Optin_tracks_only_reads_after_caching_yes_and_optout_all_but_those_after_caching_no()
    {
        await using var optIn = await _silo.ConnectAsync(3);
        await using var optOut = await _silo.ConnectAsync(3);
        await using var writer = await _silo.ConnectAsync();
        RespAssert.Ok(await optIn.CallAsync("CLIENT", "TRACKING", "ON", "OPTIN"));
        RespAssert.Ok(await optOut.CallAsync("CLIENT", "TRACKING", "ON", "OPTOUT"));
        var (skipped, chosen) = (Key("skipped"), Key("chosen"));

        await optIn.CallAsync("GET", skipped);
        RespAssert.Ok(await optIn.CallAsync("CLIENT", "CACHING", "YES"));
        Assert.Contains("caching-yes", TrackingFlags(await optIn.CallAsync("CLIENT", "TRACKINGINFO")));
        RespAssert.Ok(await optIn.CallAsync("CLIENT", "CACHING", "YES"));
        await optIn.CallAsync("GET", chosen);
        RespAssert.Ok(await optOut.CallAsync("CLIENT", "CACHING", "NO"));
        await optOut.CallAsync("GET", chosen);
        await optOut.CallAsync("GET", skipped);

        RespAssert.Ok(await writer.CallAsync("MSET", skipped, "1", chosen, "1"));

        AssertInvalidated([chosen], await optIn.ReadAsync());
        AssertInvalidated([skipped], await optOut.ReadAsync());
        RespAssert.SimpleString("PONG", await optIn.CallAsync("PING"));
        RespAssert.SimpleString("PONG", await optOut.CallAsync("PING"));
    }

    [Fact]
    public async Task With_noloop_a_connection_is_not_told_of_its_own_changes_only_of_others()
    {
        await using var tracker = await _silo.ConnectAsync(3);
        await using var writer = await _silo.ConnectAsync();
        RespAssert.Ok(await tracker.CallAsync("CLIENT", "TRACKING", "ON", "NOLOOP"));
        Assert.Equal(["on", "noloop"], TrackingFlags(await tracker.CallAsync("CLIENT", "TRACKINGINFO")));
        var (own, theirs) = (Key("own"), Key("theirs"));
        await tracker.CallAsync("MGET", own, theirs);

        RespAssert.Ok(await tracker.CallAsync("SET", own, "mine"));
        RespAssert.Ok(await writer.CallAsync("SET", theirs, "not mine"));

        // The first push is the other connection's change: none came for the tracker's own.
        AssertInvalidated([theirs], await tracker.ReadAsync());
    }

    [Theory]
    [InlineData("CLIENT TRACKING ON OPTIN OPTOUT", "ERR You can't specify both OPTIN mode and OPTOUT mode")]
    [InlineData("CLIENT TRACKING ON REDIRECT 999999", "ERR The client ID you want redirect to does not exist")]
    [InlineData("CLIENT TRACKING MAYBE", "ERR syntax error")]
    [InlineData("CLIENT TRACKING ON BOGUS", "ERR syntax error")]
    [InlineData("CLIENT TRACKING", "ERR wrong number of arguments for 'client|tracking' command")]
    [InlineData("CLIENT TRACKING ON PREFIX user:", "ERR PREFIX option requires BCAST mode to be enabled")]
    [InlineData("CLIENT TRACKING ON BCAST OPTIN", "ERR OPTIN and OPTOUT are not compatible with BCAST")]
    [InlineData("CLIENT TRACKING ON BCAST PREFIX ab PREFIX abc", "ERR Prefix 'ab' overlaps with another provided prefix 'abc'. Prefixes for a single client must not overlap.")]
    [InlineData("CLIENT CACHING YES", "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")]
    public async Task Bad_tracking_commands_are_refused_as_by_Redis(string command, string error)
    {
        await using var c = await _silo.ConnectAsync();
        RespAssert.Error(error, await c.CallAsync(command.Split(' ')));
    }

    [Fact]
    public async Task A_BCAST_connection_is_told_of_every_change_of_a_key_with_its_prefixes_read_or_not()
    {
        await using var tracker = await _silo.ConnectAsync(3);
        await using var writer = await _silo.ConnectAsync();
        var (user, item) = (Key("user:"), Key("item:"));
        RespAssert.Ok(await tracker.CallAsync("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", user, "PREFIX", item));

        RespAssert.Ok(await writer.CallAsync("SET", user + "1", "a"));
        AssertInvalidated([user + "1"], await tracker.ReadAsync());
        RespAssert.Ok(await writer.CallAsync("SET", Key("other:1"), "b"));
        RespAssert.Integer(1, await writer.CallAsync("DEL", user + "1"));
        AssertInvalidated([user + "1"], await tracker.ReadAsync());

        // Not one-shot: every change is sent, and reads do not matter.
        await tracker.CallAsync("GET", item + "9");
        RespAssert.Ok(await writer.CallAsync("SET", item + "9", "1"));
        AssertInvalidated([item + "9"], await tracker.ReadAsync());
        RespAssert.Ok(await writer.CallAsync("SET", item + "9", "2"));
        AssertInvalidated([item + "9"], await tracker.ReadAsync());

        var info = await tracker.CallAsync("CLIENT", "TRACKINGINFO");
        Assert.Equal(["on", "bcast"], TrackingFlags(info));
        Assert.Equal([item, user], info.Items[5].Items.Select(static prefix => prefix.AsString()!).Order());

        // More prefixes add to those it has, and must not overlap them; OFF ends it all.
        RespAssert.Error($"ERR Prefix '{user}x' overlaps with an existing prefix '{user}'", await tracker.CallAsync("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", user + "x"));
        RespAssert.Error("ERR You can't switch BCAST mode on/off", await tracker.CallAsync("CLIENT", "TRACKING", "ON"));
        RespAssert.Ok(await tracker.CallAsync("CLIENT", "TRACKING", "OFF"));
        RespAssert.Ok(await writer.CallAsync("SET", user + "2", "c"));
        var last = Key("last:");
        RespAssert.Ok(await tracker.CallAsync("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", last));
        RespAssert.Ok(await writer.CallAsync("SET", last + "1", "d"));
        AssertInvalidated([last + "1"], await tracker.ReadAsync());
    }

    [Fact]
    public async Task A_BCAST_connection_without_a_prefix_hears_every_key_and_a_RESP2_one_hears_through_its_redirect()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var everything = await silo.ConnectAsync(3);
        await using var listener = await silo.ConnectAsync();
        await using var redirecting = await silo.ConnectAsync();
        await using var writer = await silo.ConnectAsync();
        var listenerId = (await listener.CallAsync("CLIENT", "ID")).Integer;
        await listener.CallAsync("SUBSCRIBE", "__redis__:invalidate");
        RespAssert.Ok(await everything.CallAsync("CLIENT", "TRACKING", "ON", "BCAST"));
        RespAssert.Ok(await redirecting.CallAsync("CLIENT", "TRACKING", "ON", "BCAST", "REDIRECT", listenerId, "PREFIX", "b"));

        RespAssert.Ok(await writer.CallAsync("MSET", "a1", "1", "b1", "1"));

        var keys = new List<string>();
        while (keys.Count < 2)
        {
            var push = await everything.ReadAsync();
            keys.AddRange(push.Items[1].Items.Select(static key => key.AsString()!));
        }

        Assert.Equal(["a1", "b1"], keys.Order());
        var message = await listener.ReadAsync();
        Assert.Equal(["message", "__redis__:invalidate"], message.Items.Take(2).Select(static item => item.AsString()));
        Assert.Equal(["b1"], message.Items[2].Items.Select(static item => item.AsString()));
    }

    [Fact]
    public async Task Trackinginfo_and_getredir_describe_tracking_off_and_on_in_both_protocols()
    {
        await using var resp2 = await _silo.ConnectAsync();
        await using var resp3 = await _silo.ConnectAsync(3);
        Assert.Equal(["off"], TrackingFlags(await resp2.CallAsync("CLIENT", "TRACKINGINFO")));
        RespAssert.Integer(-1, await resp2.CallAsync("CLIENT", "GETREDIR"));

        RespAssert.Ok(await resp3.CallAsync("CLIENT", "TRACKING", "ON", "OPTIN"));
        var info = await resp3.CallAsync("CLIENT", "TRACKINGINFO");
        Assert.Equal(RespType.Map, info.Type);
        Assert.Equal(["on", "optin"], TrackingFlags(info));
        RespAssert.Integer(0, await resp3.CallAsync("CLIENT", "GETREDIR"));
        RespAssert.Ok(await resp3.CallAsync("CLIENT", "TRACKING", "OFF"));
        Assert.Equal(["off"], TrackingFlags(await resp3.CallAsync("CLIENT", "TRACKINGINFO")));
    }

    [Fact]
    public async Task Info_counts_tracking_connections_and_the_keys_the_shards_remember_for_them()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var tracker = await silo.ConnectAsync(3);
        await using var writer = await silo.ConnectAsync();
        RespAssert.Ok(await tracker.CallAsync("CLIENT", "TRACKING", "ON"));
        await tracker.CallAsync("MGET", "a", "b", "c");

        var info = SiloClients.InfoFields((await writer.CallAsync("INFO")).AsString()!);
        Assert.Equal("1", info["tracking_clients"]);
        Assert.Equal("3", info["tracking_total_keys"]);

        RespAssert.Ok(await writer.CallAsync("SET", "b", "1"));
        AssertInvalidated(["b"], await tracker.ReadAsync());
        Assert.Equal("2", SiloClients.InfoFields((await writer.CallAsync("INFO", "stats")).AsString()!)["tracking_total_keys"]);
    }

    private static string Key(string name) => SiloClients.UniqueKey($"tracked:{name}");

    private static void AssertInvalidated(string[] keys, RespValue push)
    {
        Assert.Equal(RespType.Push, push.Type);
        Assert.Equal("invalidate", push.Items[0].AsString());
        Assert.Equal(keys, push.Items[1].Items.Select(static item => item.AsString()));
    }

    private static string[] TrackingFlags(RespValue info) => [.. info.Items[1].Items.Select(static item => item.AsString()!)];
}
