using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>MULTI, EXEC and DISCARD with Redis 7's replies and errors.</summary>
public sealed class TransactionCommandTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    [Fact]
    public async Task Exec_runs_the_queued_commands_in_order_and_answers_each_ones_reply_runtime_errors_included()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("SET", "tx:order:a", "1"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("INCR", "tx:order:a"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("SET", "tx:order:s", "text"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("INCR", "tx:order:s"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("MGET", "tx:order:a", "tx:order:s", "tx:order:absent"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("PING"));

        var replies = await c.CallAsync("EXEC");

        Assert.Equal(RespType.Array, replies.Type);
        Assert.Equal(6, replies.Items.Count);
        RespAssert.Ok(replies.Items[0]);
        RespAssert.Integer(2, replies.Items[1]);
        RespAssert.Ok(replies.Items[2]);
        RespAssert.Error("ERR value is not an integer or out of range", replies.Items[3]);
        Assert.Equal(["2", "text", "(nil)"], RespAssert.Strings(replies.Items[4]));
        RespAssert.SimpleString("PONG", replies.Items[5]);
        RespAssert.Bulk("2", await c.CallAsync("GET", "tx:order:a"));
    }

    [Theory]
    [InlineData("NOSUCHCOMMAND", "ERR unknown command 'NOSUCHCOMMAND'")]
    [InlineData("GET", "ERR wrong number of arguments for 'get' command")]
    public async Task An_error_while_queueing_makes_exec_answer_execabort_and_run_nothing(string bad, string error)
    {
        await using var c = await fixture.Silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("SET", "tx:abort:" + bad, "1"));
        RespAssert.Error(error, await c.CallAsync(bad));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("SET", "tx:abort2:" + bad, "1"));

        RespAssert.Error("EXECABORT Transaction discarded because of previous errors.", await c.CallAsync("EXEC"));

        RespAssert.Integer(0, await c.CallAsync("EXISTS", "tx:abort:" + bad, "tx:abort2:" + bad));
        RespAssert.Error("ERR EXEC without MULTI", await c.CallAsync("EXEC"));
    }

    [Fact]
    public async Task Discard_drops_the_queue_and_the_connection_leaves_the_transaction()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("SET", "tx:discard", "1"));

        RespAssert.Ok(await c.CallAsync("DISCARD"));

        RespAssert.Null(await c.CallAsync("GET", "tx:discard"));
        RespAssert.Error("ERR DISCARD without MULTI", await c.CallAsync("DISCARD"));
        RespAssert.Error("ERR EXEC without MULTI", await c.CallAsync("EXEC"));
    }

    [Fact]
    public async Task A_nested_multi_is_an_error_that_leaves_the_transaction_open_and_intact()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.Error("ERR MULTI calls can not be nested", await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("SET", "tx:nested", "1"));

        var replies = await c.CallAsync("EXEC");

        RespAssert.Ok(Assert.Single(replies.Items));
        RespAssert.Bulk("1", await c.CallAsync("GET", "tx:nested"));
    }

    [Fact]
    public async Task An_empty_transaction_answers_an_empty_array_in_resp2_and_resp3()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("MULTI"));
        var empty = await c.CallAsync("EXEC");
        Assert.Equal(RespType.Array, empty.Type);
        Assert.Empty(empty.Items);

        await c.CallAsync("HELLO", "3");
        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("INCR", "tx:resp3"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("GET", "tx:resp3:absent"));
        var replies = await c.CallAsync("EXEC");
        Assert.Equal(RespType.Array, replies.Type);
        RespAssert.Integer(1, replies.Items[0]);
        Assert.Equal(RespType.Null, replies.Items[1].Type);
    }

    [Fact]
    public async Task Commands_sent_in_one_pipeline_with_multi_and_exec_are_queued_and_answered_in_order()
    {
        await using var c = await fixture.Silo.ConnectAsync();
        await c.SendRawAsync([
            .. RespTestClient.Encode("MULTI"),
            .. RespTestClient.Encode("SET", "tx:pipe", "5"),
            .. RespTestClient.Encode("INCRBY", "tx:pipe", "10"),
            .. RespTestClient.Encode("EXEC"),
            .. RespTestClient.Encode("GET", "tx:pipe"),
        ]);

        RespAssert.Ok(await c.ReadAsync());
        RespAssert.SimpleString("QUEUED", await c.ReadAsync());
        RespAssert.SimpleString("QUEUED", await c.ReadAsync());
        var replies = await c.ReadAsync();
        RespAssert.Ok(replies.Items[0]);
        RespAssert.Integer(15, replies.Items[1]);
        RespAssert.Bulk("15", await c.ReadAsync());
    }

    [Fact]
    public async Task A_whole_keyspace_command_runs_inside_a_transaction_with_every_shard_held()
    {
        await using var silo = await TestSilo.StartAsync();
        await using var c = await silo.ConnectAsync();
        RespAssert.Ok(await c.CallAsync("MSET", "a", "1", "b", "2", "c", "3"));
        RespAssert.Ok(await c.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("DEL", "a"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("DBSIZE"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("FLUSHALL"));
        RespAssert.SimpleString("QUEUED", await c.CallAsync("DBSIZE"));

        var replies = await c.CallAsync("EXEC");

        RespAssert.Integer(1, replies.Items[0]);
        RespAssert.Integer(2, replies.Items[1]);
        RespAssert.Ok(replies.Items[2]);
        RespAssert.Integer(0, replies.Items[3]);
    }
}
