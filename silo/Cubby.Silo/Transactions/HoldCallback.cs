using Cubby.Sharding;

namespace Cubby.Silo.Transactions;

/// <summary>
/// Learns that every shard of a transaction is held, keeps the holds until the transaction has run, and holds its
/// outcome: whether what it ran is kept, told to the chain as it unwinds and to any held shard that lost the chain.
/// </summary>
internal sealed class HoldCallback : ITransactionCallback
{
    private readonly TaskCompletionSource _held = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource<bool> _outcome = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Completes when the last shard of the hold chain reports that all are held.</summary>
    public Task AllHeld => _held.Task;

    public Task<bool> Held()
    {
        _held.TrySetResult();
        return _outcome.Task;
    }

    public Task<bool> Committed() => _outcome.Task;

    /// <summary>Decides the outcome, which lets the hold chain return and release every shard; the first decision stands.</summary>
    public void Decide(bool keep) => _outcome.TrySetResult(keep);
}
