using Cubby.Grains.Replication;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    // The call chain holding this shard for a transaction (RequestContext.ReentrancyId); Guid.Empty when none does.
    private Guid _holder;

    // The holding transaction as the replicas learn it, and whether a batch sealed in this hold carried it already.
    private HeldTransaction? _held;
    private bool _heldSent;

    // On a replica: the transaction whose changes it applied without learning the outcome.
    private HeldTransaction? _pending;

    /// <summary>
    /// On a replica, or a shard just promoted from one: the transaction whose changes it holds without knowing whether
    /// they are kept (its primary died before the hold ended); null when none.
    /// </summary>
    public HeldTransaction? PendingTransaction
    {
        get
        {
            lock (_turn)
            {
                return _pending;
            }
        }

        set
        {
            lock (_turn)
            {
                _pending = value;
            }
        }
    }

    /// <summary>
    /// Holds this shard for the transaction of call chain <paramref name="chain"/>, after any direct call in progress:
    /// until <see cref="Release"/>, direct callers outside that chain go through Orleans, which queues them behind the
    /// holding grain call (see <see cref="Sharding.IShardGrain.Hold"/>). What the transaction changes meanwhile reaches
    /// the replicas as it is made, marked as the hold's.
    /// </summary>
    public void Hold(Guid chain)
    {
        lock (_turn)
        {
            _holder = chain;
            _held = null;
            _heldSent = false;
        }
    }

    /// <summary>
    /// Gives the replicas, with the first change the hold makes, <paramref name="held"/>: what a replica promoted before
    /// the hold ends needs to learn the transaction's outcome and keep or put back its keys. Without it (a hold that
    /// cannot put keys back), such a replica keeps what it holds.
    /// </summary>
    public void Describe(HeldTransaction held)
    {
        lock (_turn)
        {
            _held = held;
        }
    }

    /// <summary>Ends the hold; the replicas learn it ended with the batch sealed now, whatever it holds.</summary>
    public void Release()
    {
        lock (_turn)
        {
            _holder = Guid.Empty;
            _held = null;
            if (_heldSent && _changed is not null)
            {
                _unsealed = true;
            }

            _heldSent = false;
            SealChanges();
        }
    }

    /// <summary>Whether no transaction holds this shard, or the caller runs in the one that does.</summary>
    private bool IsFreeForCaller() => _holder == Guid.Empty || _holder == Orleans.Runtime.RequestContext.ReentrancyId;

    /// <summary>The holding transaction for a batch sealed now: the whole of it the first time in this hold.</summary>
    private HeldTransaction? HeldForBatch()
    {
        if (_holder == Guid.Empty || _heldSent)
        {
            return null;
        }

        _heldSent = true;
        return _held;
    }

    /// <summary>Learns from a batch applied to this replica whether a transaction holds its primary still.</summary>
    private void FollowHold(ReplicaBatch batch)
    {
        if (batch.Holder == Guid.Empty)
        {
            _pending = null;
        }
        else if (batch.Held is { } held)
        {
            _pending = held;
        }
    }
}
