using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

/// <summary>
/// Which sliding renewals a primary sends its replicas (<see cref="EntryMetadata.CrossedHalfWindow"/>): few enough
/// that a key read constantly costs about two copies per window, often enough that the deadline a replica holds is
/// less than half a window behind the primary's.
/// </summary>
public sealed class SlidingRenewalTests
{
    [Theory]
    [InlineData(10_000, 1)]
    [InlineData(10_000, 137)]
    [InlineData(10_000, 4_999)]
    [InlineData(4, 1)]
    public void Renewals_sent_are_about_two_per_window_and_the_replicas_deadline_lags_under_half_a_window(long window, long readEvery)
    {
        var now = 1_700_000_000_123L;
        var metadata = new EntryMetadata { SlidingWindow = window, ExpiresAt = now + window };
        var replicated = metadata.ExpiresAt;
        var sent = 0;
        var windows = 20;
        for (var end = now + (windows * window); now < end;)
        {
            now += readEvery;
            var before = metadata.ExpiresAt;
            metadata.Slide(now);
            if (metadata.CrossedHalfWindow(before))
            {
                sent++;
                replicated = metadata.ExpiresAt;
            }

            Assert.True(metadata.ExpiresAt - replicated < Math.Max(1, window / 2) + readEvery, $"the replica's deadline is {metadata.ExpiresAt - replicated} ms behind at {now}");
        }

        Assert.InRange(sent, 1, (2 * windows) + 1);
    }

    [Fact]
    public void A_one_millisecond_window_sends_every_renewal_that_moves_the_deadline()
    {
        var metadata = new EntryMetadata { SlidingWindow = 1, ExpiresAt = 101 };
        metadata.Slide(100);
        Assert.False(metadata.CrossedHalfWindow(101));
        metadata.Slide(101);
        Assert.True(metadata.CrossedHalfWindow(101));
    }

    [Fact]
    public void A_renewal_within_the_same_half_window_is_not_sent()
    {
        var metadata = new EntryMetadata { SlidingWindow = 10_000, ExpiresAt = 20_000 };
        metadata.Slide(10_001);
        Assert.False(metadata.CrossedHalfWindow(20_000));
        metadata.Slide(15_000);
        Assert.True(metadata.CrossedHalfWindow(20_001));
    }
}
