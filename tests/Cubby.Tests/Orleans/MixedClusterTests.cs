using System.Text;
using Cubby.Grains.Commands;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Orleans;

/// <summary>
/// A command on keys runs the same handler wherever its shard is: through the front door of the silo holding the
/// shard, relayed from another Cubby silo, or relayed to a team's plain Orleans silo that hosts shards with
/// <c>AddCubby()</c> alone; and it answers the same bytes each way.
/// </summary>
public sealed class MixedClusterTests(MixedCluster cluster) : IClassFixture<MixedCluster>
{
    [Fact]
    public void Every_command_on_keys_has_examples_to_compare()
    {
        var missing = KeyCommandTable.Instance.All.Select(command => command.Name).Where(name => !CommandExamples.ByCommand.ContainsKey(name)).ToArray();
        Assert.True(missing.Length == 0, $"commands without examples in CommandExamples: {string.Join(", ", missing)}");
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Every_command_on_keys_answers_the_same_bytes_relayed_as_run_where_its_shard_is(int protocol)
    {
        var onFirst = await cluster.TagHeldByAsync(0);
        var onPlain = await cluster.TagHeldByAsync(2);
        await using var first = await ConnectAsync(cluster.First, protocol);
        await using var second = await ConnectAsync(cluster.Second, protocol);
        var compared = 0;
        foreach (var command in KeyCommandTable.Instance.All)
        {
            foreach (var example in CommandExamples.ByCommand[command.Name])
            {
                var local = await RunAsync(first, example, onFirst);
                var relayed = await RunAsync(second, example, onFirst);
                Assert.True(local.AsSpan().SequenceEqual(relayed), $"{example}: run where its shard is {Show(local)}, relayed {Show(relayed)}");

                var toPlain = await RunAsync(first, example, onPlain);
                if (command.Name == "cubby.owner")
                {
                    // The plain silo has no RESP front door to name.
                    Assert.EndsWith(protocol == 2 ? "$-1\r\n" : "_\r\n", Encoding.UTF8.GetString(toPlain));
                }
                else
                {
                    Assert.True(local.AsSpan().SequenceEqual(toPlain), $"{example}: run where its shard is {Show(local)}, relayed to the plain silo {Show(toPlain)}");
                }

                compared++;
            }
        }

        Assert.True(compared > 2 * KeyCommandTable.Instance.All.Count, $"only {compared} examples compared");
        Assert.Equal(0, cluster.HolderOf(SlotOf($"{{{onFirst}}}a")));
        Assert.Equal(2, cluster.HolderOf(SlotOf($"{{{onPlain}}}a")));
    }

    [Fact]
    public async Task A_plain_orleans_silo_with_AddCubby_serves_every_kind_of_command_relayed_from_cubby_silos()
    {
        var onPlain = await cluster.TagHeldByAsync(2);
        var onFirst = await cluster.TagHeldByAsync(0);
        await using var first = await cluster.First.ConnectAsync();
        await using var second = await cluster.Second.ConnectAsync();
        var plain = $"{{{onPlain}}}";
        var local = $"{{{onFirst}}}";
        var heldBefore = cluster.Plain.Catalog.Count();

        RespAssert.Ok(await first.CallAsync("SET", plain + "s", "one"));
        RespAssert.Bulk("one", await second.CallAsync("GET", plain + "s"));
        RespAssert.Integer(5, await second.CallAsync("INCRBY", plain + "n", "5"));
        RespAssert.Integer(2, await first.CallAsync("HSET", plain + "h", "f", "v", "g", "w"));
        Assert.Equal(["f", "v", "g", "w"], RespAssert.Strings(await second.CallAsync("HGETALL", plain + "h")));
        Assert.True(cluster.Plain.Catalog.Count() >= heldBefore + 3, "the plain silo holds the keys written through the front doors");

        // Split across the plain silo and a Cubby silo, merged; two keys in two silos, moved atomically.
        RespAssert.Ok(await second.CallAsync("MSET", plain + "m", "1", local + "m", "2"));
        Assert.Equal(["1", "2", "(nil)"], RespAssert.Strings(await first.CallAsync("MGET", plain + "m", local + "m", plain + "absent")));
        RespAssert.Ok(await second.CallAsync("RENAME", plain + "s", local + "s"));
        RespAssert.Bulk("one", await first.CallAsync("GET", local + "s"));
        RespAssert.Integer(0, await first.CallAsync("EXISTS", plain + "s"));

        // A transaction and a watch over a key of the plain silo.
        RespAssert.Ok(await first.CallAsync("WATCH", plain + "n"));
        RespAssert.Ok(await first.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await first.CallAsync("INCR", plain + "n"));
        RespAssert.SimpleString("QUEUED", await first.CallAsync("GET", plain + "n"));
        var exec = await first.CallAsync("EXEC");
        Assert.Equal(6, exec.Items[0].Integer);
        Assert.Equal("6", exec.Items[1].AsString());

        RespAssert.Integer(4, await second.CallAsync("DEL", plain + "n", plain + "h", plain + "m", local + "m"));
        RespAssert.Integer(1, await second.CallAsync("DEL", local + "s"));
    }

    [Fact]
    public async Task Info_cluster_counts_the_shards_and_keys_of_the_plain_silo_which_has_no_resp_door()
    {
        var plain = $"{{{await cluster.TagHeldByAsync(2)}}}";
        await using var first = await cluster.First.ConnectAsync();
        RespAssert.Ok(await first.CallAsync("SET", plain + "counted", "v"));

        var lines = (await first.CallAsync("INFO", "cluster")).AsString()!.Split("\r\n");
        var silos = lines.Where(line => line.StartsWith("silo", StringComparison.Ordinal)).ToArray();

        Assert.Equal(3, silos.Length);
        Assert.DoesNotContain(silos, line => line.Contains("=?", StringComparison.Ordinal));
        var withoutDoor = Assert.Single(silos, line => line.Contains(",resp=,", StringComparison.Ordinal));
        Assert.Contains($"shards={cluster.Plain.Catalog.ActiveShards()},", withoutDoor, StringComparison.Ordinal);
        Assert.Contains($"keys={cluster.Plain.Catalog.Count()}", withoutDoor, StringComparison.Ordinal);
        RespAssert.Integer(1, await first.CallAsync("DEL", plain + "counted"));
    }

    [Fact]
    public async Task Pub_sub_reaches_the_other_cubby_silo_and_never_asks_the_plain_silo_which_has_no_resp_door()
    {
        var second = cluster.Second.Services.GetRequiredService<ILocalSiloDetails>().SiloAddress;
        Assert.Equal([second], await cluster.First.Runtime.PubSubPeers!.OthersAsync());

        await using var subscriber = await cluster.Second.ConnectAsync();
        await using var publisher = await cluster.First.ConnectAsync();
        await subscriber.CallAsync("SUBSCRIBE", "mixed");
        RespAssert.Integer(1, await publisher.CallAsync("PUBLISH", "mixed", "across"));
        Assert.Equal(["message", "mixed", "across"], RespAssert.Strings(await subscriber.ReadAsync()));
        Assert.Equal(["mixed", "1"], RespAssert.Strings(await publisher.CallAsync("PUBSUB", "NUMSUB", "mixed")));
    }

    private static int SlotOf(string key) => new Cubby.Sharding.ShardMap(Cubby.Sharding.ShardMap.DefaultSlotCount).SlotOf(Encoding.UTF8.GetBytes(key));

    private static async Task<RespTestClient> ConnectAsync(TestSilo silo, int protocol)
    {
        var client = await silo.ConnectAsync();
        if (protocol == 3)
        {
            await client.CallAsync("HELLO", "3");
        }

        return client;
    }

    private static async Task<byte[]> RunAsync(RespTestClient client, CommandExamples.Example example, string tag)
    {
        await client.CallAsync(Arguments("DEL {a} {b} {c}", tag));
        foreach (var setup in example.Setup)
        {
            var reply = await client.CallAsync(Arguments(setup, tag));
            Assert.False(reply.IsError, $"{setup}: {reply}");
        }

        return await client.CallRawAsync(Arguments(example.Command, tag));
    }

    private static object[] Arguments(string command, string tag) =>
        [.. command.Replace("{a}", $"{{{tag}}}a", StringComparison.Ordinal)
            .Replace("{b}", $"{{{tag}}}b", StringComparison.Ordinal)
            .Replace("{c}", $"{{{tag}}}c", StringComparison.Ordinal)
            .Split(' ')];

    private static string Show(byte[] reply) => Encoding.UTF8.GetString(reply).Replace("\r\n", "\\r\\n", StringComparison.Ordinal);
}
