using Cubby.Sharding;

namespace Cubby.Silo.Transactions;

/// <summary>
/// Learns that every shard of a transaction is held, keeps the holds until the transaction has run, and answers the
/// last shard, which decides the outcome, whether to keep what it ran.
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

    /// <summary>Answers the last shard whether to keep what ran, which lets the chain end; the first answer stands.</summary>
    public void Decide(bool keep) => _outcome.TrySetResult(keep);
}
