using Cubby.Silo.Hosting;

namespace Cubby.Tests.Silo;

/// <summary>How many socket event threads a silo runs its commands on.</summary>
public sealed class SocketEngineTests
{
    [Theory]
    [InlineData(1, 1)]
    [InlineData(2, 1)]
    [InlineData(8, 7)]
    public void By_default_one_core_is_left_for_Orleans_and_the_collector(int processors, int threads) =>
        Assert.Equal(threads, SocketEngine.ThreadsFor(0, processors));

    [Fact]
    public void A_configured_count_is_kept() => Assert.Equal(6, SocketEngine.ThreadsFor(6, 2));
}
