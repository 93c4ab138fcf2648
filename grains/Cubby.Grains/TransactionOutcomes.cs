using Cubby.Grains.Replication;

namespace Cubby.Grains;

/// <summary>
/// The outcomes of the transactions that lately held one shard, by call chain: each kept for twice as long as a shard of
/// theirs that lost its chain asks for it (<see cref="Sharding.TransactionOutcome.AskedFor"/>), and the newest
/// <see cref="Capacity"/> at most, so a shard that runs many transactions keeps a bounded table and pays O(1) for each.
/// Used under the shard's turn only.
/// </summary>
internal sealed class TransactionOutcomes
{
    /// <summary>How many outcomes a shard keeps at most: a peer asks within a minute, long before this many go by.</summary>
    public const int Capacity = 1024;

    private readonly Dictionary<Guid, bool> _kept = [];
    private readonly Queue<(Guid Chain, long LearnedAt)> _order = new();

    public void Learned(Guid chain, bool kept)
    {
        var now = TimeProvider.System.GetTimestamp();
        while (_order.TryPeek(out var oldest)
            && (_order.Count >= Capacity || TimeProvider.System.GetElapsedTime(oldest.LearnedAt, now) > Sharding.TransactionOutcome.AskedFor * 2))
        {
            _kept.Remove(_order.Dequeue().Chain);
        }

        if (_kept.TryAdd(chain, kept))
        {
            _order.Enqueue((chain, now));
        }
        else
        {
            _kept[chain] = kept;
        }
    }

    public bool? Of(Guid chain) => _kept.TryGetValue(chain, out var kept) ? kept : null;

    /// <summary>Every outcome kept, oldest first, for a copy of the shard to carry.</summary>
    public TransactionEnd[] ToArray() => [.. _order.Select(entry => new TransactionEnd(entry.Chain, _kept[entry.Chain]))];
}
