using Cubby.Grains.Placement;

namespace Cubby.Grains.Reports;

/// <summary>
/// The active silos that hold shards (Cubby's own and Orleans hosts that call <c>AddCubby</c>), and what each says of
/// itself: where its RESP front door listens, and what it holds. <c>INFO cluster</c>, <c>/cluster</c>, the dashboard
/// and pub/sub read the cluster through it.
/// </summary>
public sealed class ShardSilos
{
    private readonly ShardSiloClient _client;
    private readonly ShardHomes _homes;

    internal ShardSilos(ShardSiloClient client, ShardHomes homes) => (_client, _homes) = (client, homes);

    /// <summary>This silo.</summary>
    public SiloAddress Self => _homes.Self;

    /// <summary>The active silos that hold shards, this one among them.</summary>
    /// <returns>Their addresses.</returns>
    public SiloAddress[] All() => _homes.Homes();

    /// <summary>Asks <paramref name="silo"/> what it holds and where its front door is.</summary>
    /// <param name="silo">One of <see cref="All"/>.</param>
    /// <returns>Its answer; faults when it does not answer within Orleans' call timeout.</returns>
    public Task<SiloCard> DescribeAsync(SiloAddress silo) => _client.Of(silo).Describe();
}
