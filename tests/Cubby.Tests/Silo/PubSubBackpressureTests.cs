using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

/// <summary>
/// A pub/sub subscriber that stops reading is disconnected once its limit of waiting messages is passed, and the
/// others miss nothing. It floods loopback with megabytes until the stalled socket fills, keeping both cores busy for
/// seconds, so it runs alone.
/// </summary>
[Collection(FullLoadCollection.Name)]
public sealed class PubSubBackpressureTests
{
    [Fact]
    public async Task A_subscriber_that_stops_reading_is_disconnected_and_nobody_else_misses_a_message()
    {
        await using var silo = await TestSilo.StartAsync(static options =>
        {
            options.MaxValueBytes = 64 * 1024;
            options.PubSubBufferLimitBytes = 256 * 1024;
        });
        var channel = "flood";
        await using var stalled = await silo.ConnectAsync();
        await using var reader = await silo.ConnectAsync();
        await using var publisher = await silo.ConnectAsync();
        await stalled.CallAsync("SUBSCRIBE", channel);
        await reader.CallAsync("SUBSCRIBE", channel);
        var payload = new byte[32 * 1024];
        Random.Shared.NextBytes(payload);

        // The reader takes each message before the next is published; the stalled one never reads, so its socket's
        // buffers fill, then what waits for it passes the limit.
        var published = 0;
        long receivers = 2;
        var deadline = DateTime.UtcNow.AddSeconds(60);
        while (receivers == 2 && DateTime.UtcNow < deadline)
        {
            receivers = (await publisher.CallAsync("PUBLISH", channel, payload)).Integer;
            published++;
            Assert.Equal(payload, (await reader.ReadAsync()).Items[2].Bytes.ToArray());
        }

        Assert.Equal(1, receivers);
        Assert.True(published > 8, $"the stalled subscriber was dropped after {published} messages, within what its socket holds");
        Assert.True(await stalled.IsClosedByServerAsync());
        RespAssert.Integer(1, await publisher.CallAsync("PUBLISH", channel, "end"));
        Assert.Equal("end", (await reader.ReadAsync()).Items[2].AsString());
    }
}
