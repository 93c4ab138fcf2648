using Cubby.Sharding;

namespace Cubby.Silo.Transactions;

/// <summary>Learns that every shard of a transaction is held, and keeps the holds until the transaction has run.</summary>
internal sealed class HoldCallback : ITransactionCallback
{
    private readonly TaskCompletionSource _held = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _finished = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Completes when the last shard of the hold chain reports that all are held.</summary>
    public Task AllHeld => _held.Task;

    public Task Held()
    {
        _held.TrySetResult();
        return _finished.Task;
    }

    /// <summary>Lets the hold chain return, which releases every shard.</summary>
    public void Finish() => _finished.TrySetResult();
}
