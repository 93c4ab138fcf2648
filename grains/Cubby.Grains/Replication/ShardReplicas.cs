namespace Cubby.Grains.Replication;

/// <summary>
/// The replicas this silo keeps of shards whose primaries are elsewhere: for each, a detached <see cref="Shard"/> of
/// this silo's catalog (its entries count against this silo's memory budget, like its own shards', but are never
/// evicted or expired here: the primary's evictions and expiries arrive as removals), the primary's epoch and the last
/// batch applied. A primary on a silo that this silo's membership has declared dead is fenced: it may not have heard yet,
/// but its shards have resumed elsewhere, and nothing it writes may be acknowledged. So is a primary older than one this
/// silo handed its replica to (<see cref="HandOverAsync"/>) or promoted it for (<see cref="Promote"/>).
/// </summary>
internal sealed class ShardReplicas(ShardCatalog catalog, IClusterMembershipService membership) : IDisposable
{
    private readonly Dictionary<int, Replica> _replicas = [];

    // Per shard, the epoch of the newest primary this silo's replica went to: older primaries are fenced.
    private readonly Dictionary<int, long> _floors = [];
    private readonly Lock _gate = new();

    /// <summary>How many shards this silo keeps a replica of.</summary>
    public int Count
    {
        get
        {
            lock (_gate)
            {
                return _replicas.Count;
            }
        }
    }

    /// <summary>Entries held in replicas.</summary>
    public long Entries
    {
        get
        {
            lock (_gate)
            {
                return _replicas.Values.Sum(static replica => (long)replica.Entries.Count);
            }
        }
    }

    public ReplicaAnswer Apply(SiloAddress primary, int slot, long epoch, ReplicaBatch[] batches)
    {
        if (IsFenced(primary, slot, epoch))
        {
            return ReplicaAnswer.Fenced;
        }

        Replica? replica;
        lock (_gate)
        {
            if (!_replicas.TryGetValue(slot, out replica))
            {
                return ReplicaAnswer.NeedsSnapshot;
            }
        }

        lock (replica)
        {
            if (epoch < replica.Epoch)
            {
                return ReplicaAnswer.Fenced;
            }

            if (epoch > replica.Epoch || replica.Retired || replica.Frozen)
            {
                return ReplicaAnswer.NeedsSnapshot;
            }

            foreach (var batch in batches)
            {
                if (batch.Sequence <= replica.Sequence)
                {
                    continue;
                }

                if (batch.Sequence != replica.Sequence + 1)
                {
                    return ReplicaAnswer.NeedsSnapshot;
                }

                replica.Entries.Apply(batch);
                replica.Sequence = batch.Sequence;
            }

            return ReplicaAnswer.Applied;
        }
    }

    public ReplicaAnswer Install(SiloAddress primary, int slot, long epoch, long sequence, byte[][] chunks, ShardTransactions transactions)
    {
        if (IsFenced(primary, slot, epoch))
        {
            return ReplicaAnswer.Fenced;
        }

        var entries = catalog.CreateDetached(slot);
        entries.IsReplica = true;
        entries.Adopt(transactions);
        try
        {
            foreach (var chunk in chunks)
            {
                entries.Install(chunk);
            }
        }
        catch
        {
            entries.Dispose();
            throw;
        }

        Replica? replaced;
        lock (_gate)
        {
            if ((_replicas.TryGetValue(slot, out replaced) && replaced.Epoch > epoch) || epoch < _floors.GetValueOrDefault(slot))
            {
                entries.Dispose();
                return ReplicaAnswer.Fenced;
            }

            if (replaced is not null && replaced.Epoch == epoch && IsPast(replaced, sequence))
            {
                // A snapshot that arrives late (its call timed out at the primary, which brought this replica in step
                // since) must not take it back: the primary may have acknowledged what it applied after the snapshot.
                entries.Dispose();
                return ReplicaAnswer.Applied;
            }

            _replicas[slot] = new Replica(entries, epoch, sequence);
        }

        Retire(replaced);
        return ReplicaAnswer.Applied;
    }

    /// <summary>
    /// Keeps the entries of a shard that just left this silo for another as a frozen copy at its primary's
    /// <paramref name="epoch"/>: until the new primary's replicas are in step (it then has every other silo forget
    /// copies of older epochs), a move that never arrives (the new home failed to activate it, or died first) resumes
    /// from here with every write the shard answered.
    /// </summary>
    public void KeepDeparted(int slot, long epoch, Shard entries) => KeepFrozen(slot, epoch, entries.SealedSequence, entries);

    /// <summary>
    /// Keeps <paramref name="entries"/>, loaded from this silo's persistence folder, as a copy of <paramref name="slot"/>
    /// that stood at <paramref name="epoch"/> and <paramref name="sequence"/> when written: the shard, wherever it
    /// activates, resumes from it when no silo holds a newer one.
    /// </summary>
    public void KeepStored(int slot, long epoch, long sequence, Shard entries) => KeepFrozen(slot, epoch, sequence, entries);

    private void KeepFrozen(int slot, long epoch, long sequence, Shard entries)
    {
        entries.IsReplica = true;
        var replica = new Replica(entries, epoch, sequence) { Frozen = true };
        Replica? replaced;
        lock (_gate)
        {
            // Not kept when newer than it: a replica of a later primary, a later primary here, or one that took a copy.
            if ((_replicas.TryGetValue(slot, out replaced) && replaced.Epoch > epoch) || catalog.Find(slot) is not null || epoch < _floors.GetValueOrDefault(slot))
            {
                replaced = replica;
            }
            else
            {
                _replicas[slot] = replica;
            }
        }

        Retire(replaced);
    }

    public void Forget(int slot, long epoch)
    {
        Replica? forgotten = null;
        lock (_gate)
        {
            if (_replicas.TryGetValue(slot, out var replica) && replica.Epoch <= epoch)
            {
                _replicas.Remove(slot);
                forgotten = replica;
            }
        }

        Retire(forgotten);
    }

    /// <summary>Where the replica of <paramref name="slot"/> stands; null when this silo keeps none.</summary>
    public ReplicaPosition? PositionOf(int slot)
    {
        Replica? replica;
        lock (_gate)
        {
            if (!_replicas.TryGetValue(slot, out replica))
            {
                return null;
            }
        }

        lock (replica)
        {
            return replica.Retired ? null : new ReplicaPosition(replica.Epoch, replica.Sequence);
        }
    }

    /// <summary>
    /// Hands over the replica of <paramref name="slot"/> to the shard's new activation of <paramref name="epoch"/> on
    /// this silo, which takes it as its entries; null when this silo keeps none. Primaries older than
    /// <paramref name="epoch"/> are refused from now on.
    /// </summary>
    public Shard? Promote(int slot, long epoch)
    {
        var replica = Take(slot, epoch);
        if (replica is null)
        {
            return null;
        }

        lock (replica)
        {
            replica.Retired = true;
            replica.Entries.IsReplica = false;
            replica.Entries.Reopen();
            return replica.Entries;
        }
    }

    /// <summary>
    /// Copies the replica of <paramref name="slot"/>, as migration chunks, for the shard's new primary of
    /// <paramref name="epoch"/> on another silo; null when this silo keeps none. Primaries older than
    /// <paramref name="epoch"/> are refused from now on. The replica stays, frozen, until a newer primary's replicas are
    /// in step and it is told to <see cref="Forget"/>: a new primary that fails to take the copy, or dies before any
    /// replica of its own has it, leaves it here to be handed over again.
    /// </summary>
    public async Task<ReplicaCopy?> HandOverAsync(int slot, long epoch)
    {
        Replica? replica;
        lock (_gate)
        {
            RaiseFloor(slot, epoch);
            if (!_replicas.TryGetValue(slot, out replica))
            {
                return null;
            }
        }

        ReplicaPosition position;
        lock (replica)
        {
            if (replica.Retired)
            {
                return null;
            }

            // Frozen, it takes no more batches: its entries hold still while they are copied.
            replica.Frozen = true;
            position = new ReplicaPosition(replica.Epoch, replica.Sequence);
        }

        var snapshot = await replica.Entries.SnapshotAsync(ShardGrain.MigrationChunkBytes).ConfigureAwait(false);
        return new ReplicaCopy(position, snapshot.Chunks, snapshot.Transactions);
    }

    public void Dispose()
    {
        lock (_gate)
        {
            foreach (var replica in _replicas.Values)
            {
                replica.Entries.Dispose();
            }

            _replicas.Clear();
        }
    }

    /// <summary>Removes the replica of <paramref name="slot"/> for a new primary of <paramref name="epoch"/>, fencing older ones.</summary>
    private Replica? Take(int slot, long epoch)
    {
        lock (_gate)
        {
            RaiseFloor(slot, epoch);
            return _replicas.Remove(slot, out var replica) ? replica : null;
        }
    }

    /// <summary>Refuses primaries of <paramref name="slot"/> older than <paramref name="epoch"/> from now on. Called under the gate.</summary>
    private void RaiseFloor(int slot, long epoch) => _floors[slot] = Math.Max(epoch, _floors.GetValueOrDefault(slot));

    /// <summary>
    /// Whether <paramref name="primary"/>, of <paramref name="epoch"/>, can no longer be <paramref name="slot"/>'s
    /// primary: its silo is declared dead, the shard is active here, or a newer primary took this silo's replica.
    /// </summary>
    private bool IsFenced(SiloAddress primary, int slot, long epoch)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(slot);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(slot, catalog.SlotCount);
        if (catalog.Find(slot) is not null || membership.CurrentSnapshot.GetSiloStatus(primary) == SiloStatus.Dead)
        {
            return true;
        }

        lock (_gate)
        {
            return epoch < _floors.GetValueOrDefault(slot);
        }
    }

    /// <summary>Whether <paramref name="replica"/>, still following its primary, has applied batch <paramref name="sequence"/> already.</summary>
    private static bool IsPast(Replica replica, long sequence)
    {
        lock (replica)
        {
            return !replica.Retired && !replica.Frozen && replica.Sequence >= sequence;
        }
    }

    private static void Retire(Replica? replica)
    {
        if (replica is null)
        {
            return;
        }

        lock (replica)
        {
            replica.Retired = true;
            replica.Entries.Dispose();
        }
    }

    private sealed class Replica(Shard entries, long epoch, long sequence)
    {
        public Shard Entries { get; } = entries;

        public long Epoch { get; } = epoch;

        public long Sequence { get; set; } = sequence;

        /// <summary>Replaced, forgotten or promoted: batches for it are no longer applied.</summary>
        public bool Retired { get; set; }

        /// <summary>Handed over to a newer primary: kept, and reported, but batches for it are no longer applied.</summary>
        public bool Frozen { get; set; }
    }
}
