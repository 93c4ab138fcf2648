using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>
/// A RESP command runs within <c>Cubby:Clustering:CallTimeout</c> of reaching the silo, or not at all: neither a relayed
/// command held up past it nor one that waited behind it on the same connection is run after its client, waiting that
/// long, has given up on them.
/// </summary>
public sealed class CommandDeadlineTests
{
    private static readonly TimeSpan CallTimeout = TimeSpan.FromSeconds(1);

    [Fact]
    public async Task A_command_after_the_connection_sat_idle_longer_than_the_call_timeout_runs()
    {
        await using var silo = await TestSilo.StartAsync(options => options.Clustering.CallTimeout = CallTimeout);
        await using var client = await silo.ConnectAsync();
        RespAssert.Ok(await client.CallAsync("SET", "idle", "before"));

        // Real time, as the silo's deadlines are on the real clock: counted from when the command came, not from when
        // the connection last read.
        await Task.Delay(CallTimeout * 1.5);
        RespAssert.Ok(await client.CallAsync("SET", "idle", "after"));
        RespAssert.Bulk("after", await client.CallAsync("GET", "idle"));
    }

    [Fact]
    public async Task Commands_held_past_the_call_timeout_behind_a_relayed_one_are_answered_with_errors_and_not_run()
    {
        await using var silo = await TestSilo.StartAsync(options => options.Clustering.CallTimeout = CallTimeout);
        await using var client = await silo.ConnectAsync();
        RespAssert.Ok(await client.CallAsync("SET", "{deadline}:warm", "up"));

        // A relayed command (a shard not open here yet goes through its grain) held at the shard, and two commands
        // behind it on the same connection, one of them on a shard that is open.
        using (var hold = silo.ShardCalls.Hold("{held}:first"))
        {
            await client.SendRawAsync([.. RespTestClient.Encode("SET", "{held}:first", "late"), .. RespTestClient.Encode("SET", "{deadline}:second", "late"), .. RespTestClient.Encode("SET", "{held}:third", "late")]);
            await Poll.UntilAsync(() => hold.Arrived > 0, what: "the relayed command to reach its shard");

            // The door gives up on it after the call timeout (its grain call times out), and the commands behind it
            // have waited as long; they are answered, unrun, before the held call is let through.
            foreach (var reply in new[] { await client.ReadAsync(), await client.ReadAsync(), await client.ReadAsync() })
            {
                RespAssert.Error("CLUSTERDOWN", reply);
            }
        }

        // Let through past its deadline, the held call is refused by its shard.

        RespAssert.Null(await client.CallAsync("GET", "{held}:first"));
        RespAssert.Null(await client.CallAsync("GET", "{deadline}:second"));
        RespAssert.Null(await client.CallAsync("GET", "{held}:third"));
        RespAssert.Bulk("up", await client.CallAsync("GET", "{deadline}:warm"));
    }
}
