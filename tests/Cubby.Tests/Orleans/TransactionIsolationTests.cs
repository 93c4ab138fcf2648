using System.Globalization;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Orleans;

/// <summary>
/// Transactions over keys in different shards are all-or-nothing and never interleave with each other: concurrent
/// transfers between counters in different shards never change their sum, as seen by transactions that read them all.
/// </summary>
public sealed class TransactionIsolationTests
{
    private const int Accounts = 8;
    private const long Opening = 1000;
    private const int Writers = 6;
    private const int Readers = 3;
    private const int TransfersPerWriter = 150;
    private const int ReadsPerReader = 100;

    [Fact]
    public async Task Concurrent_cross_shard_transfers_keep_the_total_on_one_silo()
    {
        await using var cluster = await TestCluster.StartAsync(1);
        await RunTransfersAsync(cluster);
    }

    [Fact]
    public async Task Concurrent_cross_shard_transfers_keep_the_total_across_three_silos()
    {
        await using var cluster = await TestCluster.StartAsync(3);
        await RunTransfersAsync(cluster);
    }

    private static async Task RunTransfersAsync(TestCluster cluster)
    {
        var accounts = Enumerable.Range(0, Accounts).Select(static i => "account:" + i.ToString(CultureInfo.InvariantCulture)).ToArray();
        var shardMap = new ShardMap();
        Assert.Equal(Accounts, accounts.Select(account => shardMap.SlotOf(System.Text.Encoding.UTF8.GetBytes(account))).Distinct().Count());
        await using (var setup = await cluster.Primary.ConnectAsync())
        {
            RespAssert.Ok(await setup.CallAsync(["MSET", .. accounts.SelectMany(static account => new object[] { account, Opening })]));
        }

        var clients = new List<RespTestClient>();
        for (var i = 0; i < Writers + Readers; i++)
        {
            clients.Add(await cluster.Silos[i % cluster.Silos.Count].ConnectAsync());
        }

        try
        {
            var writers = clients.Take(Writers).Select((client, i) => Task.Run(() => TransferAsync(client, accounts, seed: i)));
            var readers = clients.Skip(Writers).Select(client => Task.Run(() => ReadTotalsAsync(client, accounts)));
            var totals = await Task.WhenAll(readers).WaitAsync(TimeSpan.FromMinutes(4));
            await Task.WhenAll(writers).WaitAsync(TimeSpan.FromMinutes(4));

            Assert.All(totals.SelectMany(static seen => seen), static total => Assert.Equal(Accounts * Opening, total));
            await using var check = await cluster.Silos[^1].ConnectAsync();
            var final = await check.CallAsync(["MGET", .. accounts]);
            Assert.Equal(Accounts * Opening, final.Items.Sum(static item => long.Parse(item.AsString()!, CultureInfo.InvariantCulture)));
        }
        finally
        {
            foreach (var client in clients)
            {
                await client.DisposeAsync();
            }
        }
    }

    private static async Task TransferAsync(RespTestClient client, string[] accounts, int seed)
    {
        var random = new Random(seed);
        for (var i = 0; i < TransfersPerWriter; i++)
        {
            var from = random.Next(Accounts);
            var to = (from + 1 + random.Next(Accounts - 1)) % Accounts;
            var amount = random.Next(1, 50);
            await client.SendRawAsync([
                .. RespTestClient.Encode("MULTI"),
                .. RespTestClient.Encode("DECRBY", accounts[from], amount),
                .. RespTestClient.Encode("INCRBY", accounts[to], amount),
                .. RespTestClient.Encode("EXEC"),
            ]);
            RespAssert.Ok(await client.ReadAsync());
            RespAssert.SimpleString("QUEUED", await client.ReadAsync());
            RespAssert.SimpleString("QUEUED", await client.ReadAsync());
            var replies = await client.ReadAsync();
            Assert.True(replies.Type == RespType.Array && replies.Items.All(static r => r.Type == RespType.Integer), $"EXEC answered {replies}");
        }
    }

    /// <summary>Reads every account in one transaction, again and again; returns each total seen.</summary>
    private static async Task<List<long>> ReadTotalsAsync(RespTestClient client, string[] accounts)
    {
        var totals = new List<long>();
        for (var i = 0; i < ReadsPerReader; i++)
        {
            await client.SendRawAsync([
                .. RespTestClient.Encode("MULTI"),
                .. accounts.SelectMany(static account => RespTestClient.Encode("GET", account)),
                .. RespTestClient.Encode("EXEC"),
            ]);
            RespAssert.Ok(await client.ReadAsync());
            for (var a = 0; a < Accounts; a++)
            {
                RespAssert.SimpleString("QUEUED", await client.ReadAsync());
            }

            var replies = await client.ReadAsync();
            Assert.True(replies.Type == RespType.Array && replies.Items.Count == Accounts, $"EXEC answered {replies}");
            totals.Add(replies.Items.Sum(static item => long.Parse(item.AsString()!, CultureInfo.InvariantCulture)));
        }

        return totals;
    }
}
