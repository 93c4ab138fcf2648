using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>WATCH and UNWATCH with Redis 7's semantics: EXEC answers a null array and runs nothing after a watched key changed.</summary>
public sealed class WatchCommandTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    [Fact]
    public async Task Exec_runs_nothing_and_answers_a_null_array_when_another_client_wrote_a_watched_key()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        await using var other = await fixture.Silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("SET", "watch:written", "1"));
        RespAssert.Ok(await c.CallAsync("WATCH", "watch:written", "watch:untouched"));
        RespAssert.Ok(await other.CallAsync("SET", "watch:written", "1"));

        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("SET", "watch:guarded", "ran"));
        var reply = await c.CallAsync("EXEC");

        Assert.Equal(RespType.Array, reply.Type);
        Assert.True(reply.IsNull, $"expected *-1 but got {reply}");
        RespAssert.Null(await c.CallAsync("GET", "watch:guarded"));
    }

    [Theory]
    [InlineData("DEL")]
    [InlineData("PEXPIRE")]
    [InlineData("FLUSHALL")]
    [InlineData("INCR")]
    public async Task Deleting_expiring_flushing_or_incrementing_a_watched_key_also_aborts(string change)
    {
        await using var c = await fixture.Silo.ConnectAsync();
        await using var other = await fixture.Silo.ConnectAsync();
        var key = "watch:change:" + change;
        RespAssert.Ok(await c.CallAsync("SET", key, "5"));
        RespAssert.Ok(await c.CallAsync("WATCH", key));
        await other.CallAsync(change switch
        {
            "PEXPIRE" => ["PEXPIRE", key, "60000"],
            "FLUSHALL" => ["FLUSHALL"],
            _ => [change, key],
        });

        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("GET", key));

        Assert.True((await c.CallAsync("EXEC")).IsNull);
    }

    [Fact]
    public async Task Exec_runs_when_only_unwatched_keys_changed_and_reads_of_the_watched_key_do_not_count()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        await using var other = await fixture.Silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("SET", "watch:kept", "1"));
        RespAssert.Ok(await c.CallAsync("WATCH", "watch:kept", "watch:kept:absent"));
        RespAssert.Ok(await other.CallAsync("SET", "watch:kept:neighbour", "x"));
        RespAssert.Bulk("1", await other.CallAsync("GET", "watch:kept"));
        RespAssert.Integer(0, await other.CallAsync("EXISTS", "watch:kept:absent"));

        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("INCR", "watch:kept"));
        var reply = await c.CallAsync("EXEC");

        RespAssert.Integer(2, Assert.Single(reply.Items));
    }

    [Fact]
    public async Task A_change_made_by_the_watching_client_itself_before_multi_aborts_too()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("WATCH", "watch:self"));
        RespAssert.Ok(await c.CallAsync("SET", "watch:self", "mine"));
        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("SET", "watch:self", "tx"));

        Assert.True((await c.CallAsync("EXEC")).IsNull);
        RespAssert.Bulk("mine", await c.CallAsync("GET", "watch:self"));
    }

    [Theory]
    [InlineData("UNWATCH")]
    [InlineData("EXEC")]
    [InlineData("DISCARD")]
    public async Task Unwatch_exec_and_discard_end_the_watches(string end)
    {
        await using var c = await fixture.Silo.ConnectAsync();
        await using var other = await fixture.Silo.ConnectAsync();
        var key = "watch:end:" + end;
        RespAssert.Ok(await c.CallAsync("WATCH", key));
        if (end == "UNWATCH")
        {
            RespAssert.Ok(await c.CallAsync("UNWATCH"));
        }
        else
        {
            RespAssert.Ok(await c.CallAsync("MULTI"));
            var ended = await c.CallAsync(end);
            Assert.False(ended.Type == RespType.Error, $"{end} answered {ended}");
        }

        RespAssert.Ok(await other.CallAsync("SET", key, "changed"));
        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("GET", key));

        Assert.Equal(["changed"], RespAssert.Strings(await c.CallAsync("EXEC")));
    }

    [Fact]
    public async Task Watch_inside_multi_is_refused_and_the_transaction_goes_on()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.Error("ERR WATCH inside MULTI is not allowed", await c.CallAsync("WATCH", "watch:inside"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("SET", "watch:inside", "1"));

        Assert.Equal(["OK"], RespAssert.Strings(await c.CallAsync("EXEC")));
    }

    [Fact]
    public async Task Watch_needs_a_key_and_unwatch_takes_none()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        RespAssert.Error("ERR wrong number of arguments for 'watch' command", await c.CallAsync("WATCH"));
        RespAssert.Error("ERR wrong number of arguments for 'unwatch' command", await c.CallAsync("UNWATCH", "k"));
        RespAssert.Ok(await c.CallAsync("UNWATCH"));
    }

    [Fact]
    public async Task Exec_after_a_changed_watch_answers_the_resp3_null()
    {
        await using var c = await fixture.Silo.ConnectAsync(protocol: 3);
        await using var other = await fixture.Silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("WATCH", "watch:resp3"));
        RespAssert.Ok(await other.CallAsync("SET", "watch:resp3", "1"));
        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("GET", "watch:resp3"));

        Assert.Equal(RespType.Null, (await c.CallAsync("EXEC")).Type);
    }
}
