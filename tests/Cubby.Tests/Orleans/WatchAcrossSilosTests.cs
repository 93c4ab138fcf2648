using System.Globalization;
using System.Text;
using Cubby.Grains;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Orleans;

/// <summary>WATCH on keys whose shards live on another silo: checked there at EXEC, and ended there afterwards.</summary>
public sealed class WatchAcrossSilosTests
{
    private static readonly string[] Keys = [.. Enumerable.Range(0, 16).Select(static i => "watch:across:" + i.ToString(CultureInfo.InvariantCulture))];

    [Fact]
    public async Task Watches_on_shards_of_another_silo_guard_exec_and_end_with_exec_and_with_the_connection()
    {
        await using var cluster = await TestCluster.StartAsync(2);
        await using var writer = await cluster.Silos[1].ConnectAsync();
        RespAssert.Ok(await writer.CallAsync(["MSET", .. Keys.SelectMany(static key => new object[] { key, "0" })]));
        var remote = Keys.First(key => cluster.Primary.Services.GetRequiredService<ShardCatalog>().Find(SlotOf(key)) is null);

        var watcher = await cluster.Primary.ConnectAsync();
        try
        {
            RespAssert.Ok(await watcher.CallAsync(["WATCH", .. Keys]));
            Assert.Equal(Keys.Length, WatchedKeys(cluster));
            Assert.Equal(["0"], RespAssert.Strings(await RunAsync(watcher, remote)));
            await WaitForNoWatchesAsync(cluster);

            RespAssert.Ok(await watcher.CallAsync(["WATCH", .. Keys]));
            RespAssert.Ok(await writer.CallAsync("SET", remote, "changed"));
            Assert.True((await RunAsync(watcher, remote)).IsNull);

            RespAssert.Ok(await watcher.CallAsync(["WATCH", .. Keys]));
        }
        finally
        {
            await watcher.DisposeAsync();
        }

        await WaitForNoWatchesAsync(cluster);
    }

    private static async Task<RespValue> RunAsync(RespTestClient client, string key)
    {
        RespAssert.Ok(await client.CallAsync("MULTI"));
        RespAssert.SimpleString("QUEUED", await client.CallAsync("GET", key));
        return await client.CallAsync("EXEC");
    }

    private static Task WaitForNoWatchesAsync(TestCluster cluster) =>
        Poll.UntilAsync(() => Task.FromResult(WatchedKeys(cluster) == 0), TimeSpan.FromSeconds(30), "every watch to end");

    private static int WatchedKeys(TestCluster cluster) =>
        cluster.Silos.Sum(static silo =>
        {
            var catalog = silo.Services.GetRequiredService<ShardCatalog>();
            return Enumerable.Range(0, catalog.SlotCount).Sum(slot => catalog.Find(slot)?.WatchedKeys ?? 0);
        });

    private static int SlotOf(string key) => new ShardMap().SlotOf(Encoding.UTF8.GetBytes(key));
}
