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

    // How the transactions that held this shard lately ended, as decided or learned here, or by the primary replicated.
    private readonly TransactionOutcomes _outcomes = new();

    // The outcome of the hold that just ended, for the batch its end seals.
    private TransactionEnd? _ended;

    // Chains this shard, as their last shard, decided to roll back without holding them, until that is on the replicas.
    private readonly HashSet<Guid> _presumed = [];

    // The hold that ended last, until its outcome is on the replicas and learned: it is decided, but not to be told yet.
    private Guid _unsettled;

    /// <summary>Whether a transaction holds the shard (between <c>Hold</c> and <see cref="Release"/>).</summary>
    public bool IsHeld
    {
        get
        {
            lock (_turn)
            {
                return _holder != Guid.Empty;
            }
        }
    }

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

    /// <summary>
    /// Ends the hold; the replicas learn it ended, and how (<paramref name="ended"/>; null when it never ran), with the
    /// batch sealed now, whatever it holds. A shard that decided the outcome (the chain's last) seals one even when the
    /// transaction changed nothing here: its other shards may ask it after its replica took over.
    /// </summary>
    public void Release(TransactionEnd? ended, bool decided)
    {
        lock (_turn)
        {
            _unsettled = ended?.Chain ?? Guid.Empty;
            _holder = Guid.Empty;
            _held = null;
            _ended = ended;
            if ((_heldSent || (decided && ended is not null)) && _changed is not null)
            {
                _unsealed = true;
            }

            _heldSent = false;
            SealChanges();
            _ended = null;
        }
    }

    /// <summary>
    /// Makes the outcome of a transaction that held this shard known to those that ask (<see cref="Sharding.IShardGrain.Outcome"/>):
    /// once it is on the replicas, so one that takes over knows it too.
    /// </summary>
    public void Learned(Guid chain, bool kept)
    {
        lock (_turn)
        {
            _outcomes.Learned(chain, kept);
            _presumed.Remove(chain);
            if (_unsettled == chain)
            {
                _unsettled = Guid.Empty;
            }
        }
    }

    /// <summary>
    /// As the last shard of the transaction of call chain <paramref name="chain"/>: its decision, when known here; null
    /// while this shard holds it undecided, or decided but not yet on the replicas; otherwise a rollback decided now,
    /// sealed for the replicas
    /// (<paramref name="presumed"/>: answer it once they have it, then <see cref="Learned"/> it).
    /// </summary>
    public bool? Decide(Guid chain, out bool presumed)
    {
        lock (_turn)
        {
            presumed = false;
            if (_outcomes.Of(chain) is { } known)
            {
                return known;
            }

            if (_holder == chain || _unsettled == chain)
            {
                return null;
            }

            presumed = true;
            if (_presumed.Add(chain) && _changed is not null)
            {
                _ended = new TransactionEnd(chain, Kept: false);
                _unsealed = true;
                SealChanges();
                _ended = null;
            }

            return false;
        }
    }

    /// <summary>Whether a hold of <paramref name="chain"/> that arrives now must be refused: its transaction was rolled back here without it.</summary>
    public bool Refuses(Guid chain)
    {
        lock (_turn)
        {
            return _presumed.Contains(chain) || _outcomes.Of(chain) == false;
        }
    }

    /// <summary>Whether the transaction of call chain <paramref name="chain"/> was kept, as known here; null when not known.</summary>
    public bool? OutcomeOf(Guid chain)
    {
        lock (_turn)
        {
            return _outcomes.Of(chain);
        }
    }

    /// <summary>What a copy of this shard carries about its transactions (<see cref="ShardTransactions"/>).</summary>
    private ShardTransactions TransactionsForCopy()
    {
        var pending = _holder != Guid.Empty ? _held : _pending;
        var ended = _outcomes.ToArray();
        return pending is null && ended.Length == 0 ? ShardTransactions.None : new ShardTransactions(pending, ended);
    }

    /// <summary>Takes on what a copy of the shard carried about its transactions, before the copy serves or replicates.</summary>
    public void Adopt(ShardTransactions transactions)
    {
        lock (_turn)
        {
            _pending = transactions.Pending;
            foreach (var ended in transactions.Ended)
            {
                _outcomes.Learned(ended.Chain, ended.Kept);
            }
        }
    }

    /// <summary>Whether no transaction holds this shard, or the caller runs in the one that does.</summary>
    private bool IsFreeForCaller() => _holder == Guid.Empty || _holder == Orleans.Runtime.RequestContext.ReentrancyId;

    /// <summary>
    /// Whether the caller runs a transaction's command and that transaction no longer holds this shard. Every shard a
    /// transaction's commands touch is held before the first runs, so its hold here ended, decided without this command
    /// (the shard resumed elsewhere and settled it, or the last shard decided without the coordinator's answer).
    /// </summary>
    /// <remarks>
    /// Only command entry points ask (<see cref="TryEnterCommandTurn"/>, <see cref="ThrowIfHoldEnded"/>), never a turn
    /// as such: the chain id is an <c>AsyncLocal</c> that also flows into work a chain's call starts (a batch for the
    /// replicas, an activation), and such work is not the transaction's.
    /// </remarks>
    private bool IsHoldEndedForCaller() =>
        Orleans.Runtime.RequestContext.ReentrancyId is var caller && caller != Guid.Empty && _holder != caller;

    /// <summary>
    /// Refuses, in the caller's turn, a transaction's command that reached this shard after the transaction's hold here
    /// ended: run now, it would change or read a key outside the transaction's isolation.
    /// </summary>
    /// <exception cref="Sharding.HoldEndedException">It did.</exception>
    public void ThrowIfHoldEnded()
    {
        RequireTurn();
        if (IsHoldEndedForCaller())
        {
            throw Sharding.HoldEndedException.For(Slot);
        }
    }

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

    /// <summary>Learns from a batch applied to this replica whether a transaction holds its primary still, or how one ended.</summary>
    private void FollowHold(ReplicaBatch batch)
    {
        if (batch.Ended is { } ended)
        {
            _outcomes.Learned(ended.Chain, ended.Kept);
        }

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
