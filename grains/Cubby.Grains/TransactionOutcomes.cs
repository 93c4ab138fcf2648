namespace Cubby.Grains;

/// <summary>
/// The outcomes of the transactions that lately held one shard, by call chain, kept for twice as long as a shard of
/// theirs that lost its chain asks for them (<see cref="Sharding.TransactionOutcome.AskedFor"/>). Used on the shard
/// grain's turn only.
/// </summary>
internal sealed class TransactionOutcomes
{
    private readonly Dictionary<Guid, (bool Kept, long LearnedAt)> _learned = [];

    public void Learned(Guid chain, bool kept)
    {
        var now = TimeProvider.System.GetTimestamp();
        if (_learned.Count >= 64)
        {
            foreach (var (old, outcome) in _learned)
            {
                if (TimeProvider.System.GetElapsedTime(outcome.LearnedAt, now) > Sharding.TransactionOutcome.AskedFor * 2)
                {
                    _learned.Remove(old);
                }
            }
        }

        _learned[chain] = (kept, now);
    }

    public bool? Of(Guid chain) => _learned.TryGetValue(chain, out var outcome) ? outcome.Kept : null;
}
