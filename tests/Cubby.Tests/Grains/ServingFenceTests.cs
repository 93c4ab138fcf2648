using Cubby.Grains.Fencing;
using Cubby.Sharding;
using Cubby.Tests.Client;
using Orleans.Configuration;

namespace Cubby.Tests.Grains;

/// <summary>The fence a silo's shard turns check: open while confirmed lately, shut after, and for good once dead.</summary>
public sealed class ServingFenceTests
{
    [Fact]
    public async Task A_confirmation_keeps_the_silo_serving_for_its_period_counted_from_when_it_was_asked()
    {
        var fence = new ServingFence(TimeSpan.FromMilliseconds(200));
        Assert.True(fence.IsServing);

        await Poll.UntilAsync(() => !fence.IsServing, TimeSpan.FromSeconds(10), "the unconfirmed fence to shut");
        var refused = Assert.Throws<SiloFencedException>(() => fence.ThrowIfNotServing(7));
        Assert.Contains("shard 7", refused.Message, StringComparison.Ordinal);
        Assert.Contains("200 ms", refused.Message, StringComparison.Ordinal);

        fence.Confirmed(TimeProvider.System.GetTimestamp());
        Assert.True(fence.IsServing);
        fence.ThrowIfNotServing(7);

        // An older round's answer never shortens a newer one's period.
        fence.Confirmed(TimeProvider.System.GetTimestamp() - TimeProvider.System.TimestampFrequency);
        Assert.True(fence.IsServing);
    }

    [Fact]
    public void What_remains_of_a_confirmation_is_counted_from_when_it_was_asked()
    {
        // Unconfirmed, a fence serves one period from its making; a round asked 30 s from now would serve to 90 s.
        var fence = new ServingFence(TimeSpan.FromMinutes(1));
        Assert.InRange(fence.Remaining, TimeSpan.FromSeconds(50), TimeSpan.FromSeconds(60));
        fence.Confirmed(TimeProvider.System.GetTimestamp() + (TimeProvider.System.TimestampFrequency * 30));

        Assert.InRange(fence.Remaining, TimeSpan.FromSeconds(80), TimeSpan.FromSeconds(90));
    }

    [Fact]
    public void A_silo_declared_dead_never_serves_again()
    {
        var fence = new ServingFence(TimeSpan.FromMinutes(1));
        fence.DeclaredDead();
        fence.Confirmed(TimeProvider.System.GetTimestamp());

        Assert.Equal(TimeSpan.Zero, fence.Remaining);
        Assert.False(fence.IsServing);
        Assert.Contains("declared dead", Assert.Throws<SiloFencedException>(() => fence.ThrowIfNotServing(1)).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_period_is_half_the_time_the_other_silos_need_to_declare_a_silo_dead()
    {
        var fence = ServingFence.For(new ClusterMembershipOptions { ProbeTimeout = TimeSpan.FromSeconds(1), NumMissedProbesLimit = 3 });

        Assert.Equal(TimeSpan.FromMilliseconds(1500), fence.ServingFor);
        Assert.True(ShardCallRetry.IsTransient(new SiloFencedException()));
    }
}
