using Orleans.Runtime;

namespace Cubby.Grains.Placement;

/// <summary>
/// One set of homes, ready to rank shards against: each silo's seed is hashed once here, not once per shard, so a pass
/// over every shard (the rebalancer's, every few seconds) costs a hash per shard and silo and allocates nothing per shard.
/// </summary>
internal sealed class HomeRanking
{
    private readonly SiloAddress[] _silos;
    private readonly ulong[] _seeds;
    private readonly SiloAddress _fallback;

    /// <param name="silos">The homes to choose among.</param>
    /// <param name="fallback">The answer when <paramref name="silos"/> is empty.</param>
    public HomeRanking(IReadOnlyList<SiloAddress> silos, SiloAddress fallback)
    {
        _silos = [.. silos];
        _seeds = Array.ConvertAll(_silos, static silo => ShardHomes.Seed(silo));
        _fallback = fallback;
    }

    /// <summary>The silo with the highest score for <paramref name="shard"/>, ties going to the lower address.</summary>
    public SiloAddress HomeOf(int shard)
    {
        if (_silos.Length <= 1)
        {
            return _silos.Length == 0 ? _fallback : _silos[0];
        }

        var best = _silos[0];
        var bestScore = 0UL;
        for (var i = 0; i < _silos.Length; i++)
        {
            var score = ShardHomes.Score(shard, _seeds[i]);
            if (score > bestScore || (score == bestScore && _silos[i].CompareTo(best) < 0))
            {
                best = _silos[i];
                bestScore = score;
            }
        }

        return best;
    }
}
