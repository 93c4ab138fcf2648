namespace Cubby.Grains.Replication;

/// <summary>
/// The replicas this silo keeps of shards whose primaries are elsewhere: for each, a detached <see cref="Shard"/> of
/// this silo's catalog (its entries count against this silo's memory budget, like its own shards', but are never
/// evicted or expired here: the primary's evictions and expiries arrive as removals), the primary's epoch and the last
/// batch applied. A primary on a silo that this silo's membership has declared dead is fenced: it may not have heard yet,
/// but its shards have resumed elsewhere, and nothing it writes may be acknowledged.
/// </summary>
internal sealed class ShardReplicas(ShardCatalog catalog, IClusterMembershipService membership) : IDisposable
{
    private readonly Dictionary<int, Replica> _replicas = [];
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
        if (IsFenced(primary, slot))
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

            if (epoch > replica.Epoch || replica.Retired)
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

    public ReplicaAnswer Install(SiloAddress primary, int slot, long epoch, long sequence, byte[][] chunks)
    {
        if (IsFenced(primary, slot))
        {
            return ReplicaAnswer.Fenced;
        }

        var entries = catalog.CreateDetached(slot);
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
            if (_replicas.TryGetValue(slot, out replaced) && replaced.Epoch > epoch)
            {
                entries.Dispose();
                return ReplicaAnswer.Fenced;
            }

            _replicas[slot] = new Replica(entries, epoch, sequence);
        }

        Retire(replaced);
        return ReplicaAnswer.Applied;
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

    /// <summary>
    /// Hands over the replica of <paramref name="slot"/> to the shard's new activation here, which takes it as its
    /// entries; null when this silo keeps none. Batches still arriving for it from the old primary are refused.
    /// </summary>
    public Shard? Promote(int slot)
    {
        Replica? replica;
        lock (_gate)
        {
            if (!_replicas.Remove(slot, out replica))
            {
                return null;
            }
        }

        lock (replica)
        {
            replica.Retired = true;
            return replica.Entries;
        }
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

    /// <summary>Whether <paramref name="primary"/> can no longer be <paramref name="slot"/>'s primary: its silo is declared dead, or the shard is active here.</summary>
    private bool IsFenced(SiloAddress primary, int slot)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(slot);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(slot, catalog.SlotCount);
        return catalog.Find(slot) is not null || membership.CurrentSnapshot.GetSiloStatus(primary) == SiloStatus.Dead;
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
    }
}
