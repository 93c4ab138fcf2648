using System.Globalization;
using System.Text;
using Cubby.Grains;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Orleans;

/// <summary>
/// RENAME, RENAMENX, COPY, LCS and RANDOMKEY with keys in shards on different silos: the same replies as on one silo,
/// and a move is atomic: concurrent moves of one token between keys all over the cluster never show it twice or lose it.
/// </summary>
public sealed class TwoKeyCommandsAcrossSilosTests
{
    private const int Places = 12;
    private const int Movers = 4;
    private const int MovesPerMover = 60;
    private const int Checks = 60;

    [Fact]
    public async Task Two_key_commands_work_across_silos_and_moves_are_atomic()
    {
        await using var cluster = await TestCluster.StartAsync(2);
        var places = Enumerable.Range(0, Places).Select(static i => "place:" + i.ToString(CultureInfo.InvariantCulture)).ToArray();
        var catalog = cluster.Primary.Services.GetRequiredService<ShardCatalog>();
        await using var client = await cluster.Primary.ConnectAsync();
        RespAssert.Ok(await client.CallAsync(["MSET", .. places.SelectMany(static place => new object[] { place, "warm" })]));
        var local = places.First(place => catalog.Find(SlotOf(place)) is not null);
        var remote = places.First(place => catalog.Find(SlotOf(place)) is null);
        RespAssert.Integer(Places, await client.CallAsync(["DEL", .. places]));

        await CheckCommandsAsync(client, local, remote);
        await CheckCommandsAsync(client, remote, local);
        await MoveTokenConcurrentlyAsync(cluster, places);
    }

    private static async Task CheckCommandsAsync(RespTestClient client, string from, string to)
    {
        RespAssert.Ok(await client.CallAsync("SET", from, "ohmytext", "EX", "1000"));
        RespAssert.Ok(await client.CallAsync("RENAME", from, to));
        RespAssert.Null(await client.CallAsync("GET", from));
        Assert.InRange((await client.CallAsync("TTL", to)).Integer, 990, 1000);

        RespAssert.Ok(await client.CallAsync("SET", from, "mynewtext"));
        RespAssert.Integer(0, await client.CallAsync("RENAMENX", to, from));
        RespAssert.Integer(6, await client.CallAsync("LCS", to, from, "LEN"));
        RespAssert.Bulk("mytext", await client.CallAsync("LCS", to, from));
        RespAssert.Integer(1, await client.CallAsync("COPY", from, to, "REPLACE"));
        RespAssert.Integer(-1, await client.CallAsync("TTL", to));
        Assert.Equal(["mynewtext", "mynewtext"], RespAssert.Strings(await client.CallAsync("MGET", from, to)));
        RespAssert.Integer(1, await client.CallAsync("DEL", from));
        RespAssert.Bulk(to, await client.CallAsync("RANDOMKEY"));
        RespAssert.Integer(1, await client.CallAsync("DEL", to));
    }

    /// <summary>Movers pass one token around with RENAMENX while checkers count it in transactions: always exactly one.</summary>
    private static async Task MoveTokenConcurrentlyAsync(TestCluster cluster, string[] places)
    {
        await using (var setup = await cluster.Primary.ConnectAsync())
        {
            RespAssert.Ok(await setup.CallAsync("SET", places[0], "token"));
        }

        var clients = new List<RespTestClient>();
        for (var i = 0; i < Movers + 2; i++)
        {
            clients.Add(await cluster.Silos[i % cluster.Silos.Count].ConnectAsync());
        }

        try
        {
            var movers = clients.Take(Movers).Select((client, i) => Task.Run(() => MoveAsync(client, places, seed: i))).ToArray();
            var checkers = clients.Skip(Movers).Select(client => Task.Run(() => CountAsync(client, places))).ToArray();
            var moved = await Task.WhenAll(movers).WaitAsync(TimeSpan.FromMinutes(3));
            var counts = await Task.WhenAll(checkers).WaitAsync(TimeSpan.FromMinutes(3));

            Assert.True(moved.Sum() > 0, "no move found the token");
            Assert.All(counts.SelectMany(static seen => seen), static count => Assert.Equal(1, count));
            var final = await clients[0].CallAsync(["MGET", .. places]);
            Assert.Equal(["token"], final.Items.Where(static item => !item.IsNull).Select(static item => item.AsString()));
        }
        finally
        {
            foreach (var client in clients)
            {
                await client.DisposeAsync();
            }
        }
    }

    private static async Task<int> MoveAsync(RespTestClient client, string[] places, int seed)
    {
        var random = new Random(seed);
        var moved = 0;
        for (var i = 0; i < MovesPerMover; i++)
        {
            var from = random.Next(Places);
            var to = (from + 1 + random.Next(Places - 1)) % Places;
            var reply = await client.CallAsync("RENAMENX", places[from], places[to]);
            Assert.True(reply.Type == RespType.Integer || reply.AsString() == "ERR no such key", $"RENAMENX answered {reply}");
            moved += reply is { Type: RespType.Integer, Integer: 1 } ? 1 : 0;
        }

        return moved;
    }

    private static async Task<List<long>> CountAsync(RespTestClient client, string[] places)
    {
        var counts = new List<long>();
        for (var i = 0; i < Checks; i++)
        {
            await client.SendRawAsync([
                .. RespTestClient.Encode("MULTI"),
                .. places.SelectMany(static place => RespTestClient.Encode("EXISTS", place)),
                .. RespTestClient.Encode("EXEC"),
            ]);
            RespAssert.Ok(await client.ReadAsync());
            for (var p = 0; p < Places; p++)
            {
                RespAssert.SimpleString("QUEUED", await client.ReadAsync());
            }

            counts.Add((await client.ReadAsync()).Items.Sum(static item => item.Integer));
        }

        return counts;
    }

    private static int SlotOf(string key) => new ShardMap().SlotOf(Encoding.UTF8.GetBytes(key));
}
