using System.Globalization;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Orleans;

/// <summary>
/// Pub/sub across three real silos in the test process: a message published through any silo's RESP door reaches
/// the subscribers of every silo, by channel and by pattern, in the order one connection published them, and PUBSUB
/// answers for the whole cluster.
/// </summary>
public sealed class PubSubClusterTests
{
    [Fact]
    public async Task A_message_published_on_one_silo_reaches_subscribers_on_every_silo_in_publish_order()
    {
        await using var cluster = await TestCluster.StartAsync(3);
        await using var byName = await cluster.Silos[0].ConnectAsync();
        await using var byPattern = await cluster.Silos[1].ConnectAsync();
        await using var sameSilo = await cluster.Silos[2].ConnectAsync();
        await using var publisher = await cluster.Silos[2].ConnectAsync();
        await byName.CallAsync("SUBSCRIBE", "orders");
        await byPattern.CallAsync("PSUBSCRIBE", "ord*");
        await sameSilo.CallAsync("SUBSCRIBE", "orders");

        const int Messages = 300;
        for (var i = 0; i < Messages; i++)
        {
            await publisher.SendAsync("PUBLISH", "orders", i.ToString(CultureInfo.InvariantCulture));
        }

        for (var i = 0; i < Messages; i++)
        {
            RespAssert.Integer(3, await publisher.ReadAsync());
        }

        foreach (var subscriber in new[] { byName, byPattern, sameSilo })
        {
            for (var i = 0; i < Messages; i++)
            {
                var message = await subscriber.ReadAsync();
                Assert.Equal(i.ToString(CultureInfo.InvariantCulture), message.Items[^1].AsString());
            }
        }
    }

    [Fact]
    public async Task Pubsub_queries_through_any_silo_count_the_subscriptions_of_every_silo()
    {
        await using var cluster = await TestCluster.StartAsync(3);
        var subscribers = await Task.WhenAll(cluster.Silos.Select(static silo => silo.ConnectAsync()));
        await using var asker = await cluster.Silos[0].ConnectAsync();
        try
        {
            for (var i = 0; i < subscribers.Length; i++)
            {
                await subscribers[i].CallAsync("SUBSCRIBE", "shared", $"own:{i}");
                await subscribers[i].CallAsync("PSUBSCRIBE", "p:*");
            }

            Assert.Equal(["own:0", "own:1", "own:2", "shared"], RespAssert.Strings(await asker.CallAsync("PUBSUB", "CHANNELS")).Order());
            Assert.Equal(["shared", "3", "own:1", "1"], RespAssert.Strings(await asker.CallAsync("PUBSUB", "NUMSUB", "shared", "own:1")));
            RespAssert.Integer(1, await asker.CallAsync("PUBSUB", "NUMPAT"));

            // A closed connection's subscriptions go with it, on its own silo.
            await subscribers[2].DisposeAsync();
            await Poll.UntilAsync(async () => RespAssert.Strings(await asker.CallAsync("PUBSUB", "NUMSUB", "shared"))[1] == "2", what: "the closed subscriber to be forgotten");
            RespAssert.Integer(2, await asker.CallAsync("PUBLISH", "shared", "x"));
            RespAssert.Integer(2, await asker.CallAsync("PUBLISH", "p:x", "y"));
        }
        finally
        {
            foreach (var subscriber in subscribers.Take(2))
            {
                await subscriber.DisposeAsync();
            }
        }
    }
}
