using System.Buffers;
using Cubby.Grains.Migration;
using Cubby.Grains.Persistence;
using Cubby.Grains.Replication;
using Cubby.Grains.Storage;
using Cubby.Text;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    private static readonly TimeSpan PauseBetweenChunks = TimeSpan.FromMilliseconds(1);

    /// <summary>The largest sealing buffer a shard keeps between turns; a larger one was for a rare large batch.</summary>
    private const int MaxKeptSealingBytes = 256 * 1024;

    private ShardReplicator? _replicator;

    // The silo's changes file, the epoch this shard is primary at, and where its last batch ends in the file.
    private ChangesLog? _log;
    private long _logEpoch;
    private long _loggedTo;

    // Keys changed in the current turn, and whether the shard was emptied in it; sealed into a batch when the turn ends.
    // Whether either happened is kept apart too, so the end of a turn that recorded nothing (every turn of a shard
    // with no replicas) reads only this object and not the set.
    private HashSet<byte[]>? _changed;
    private bool _cleared;
    private bool _unsealed;
    private long _sealed;

    // The buffer a turn's upserts are sealed into, kept for the next turn unless a large batch grew it.
    private ArrayBufferWriter<byte>? _sealing;

    /// <summary>The last sequence number sealed into a batch for the replicas.</summary>
    public long SealedSequence => Volatile.Read(ref _sealed);

    /// <summary>
    /// From now on every change made in a turn is sealed into a <see cref="ReplicaBatch"/> for
    /// <paramref name="replicator"/> when that turn ends: the keys' states at that moment, in sequence.
    /// </summary>
    public void ReplicateTo(ShardReplicator replicator)
    {
        lock (_turn)
        {
            _replicator = replicator;
            _changed = new HashSet<byte[]>(ByteStringComparer.Instance);
        }
    }

    /// <summary>
    /// From now on every change made in a turn is also sealed into a batch appended to <paramref name="log"/>, stamped
    /// with <paramref name="epoch"/>, the epoch this shard is primary at; <paramref name="begin"/> first appends where
    /// the shard begins, given the sequence its batches follow, in the same turn, so no batch comes before it.
    /// </summary>
    public void LogTo(ChangesLog log, long epoch, Action<long> begin)
    {
        lock (_turn)
        {
            SealChanges();
            begin(_sealed);
            (_log, _logEpoch) = (log, epoch);
            _changed ??= new HashSet<byte[]>(ByteStringComparer.Instance);
        }
    }

    /// <summary>The epoch this shard appends its changes to a changes file at; null when it appends to none.</summary>
    public long? LogEpoch
    {
        get
        {
            lock (_turn)
            {
                return _log is null ? null : _logEpoch;
            }
        }
    }

    /// <summary>Whether changes are recorded for a batch: for the changes file, or for replicas.</summary>
    private bool Recording => _log is not null || _replicator!.Recording;

    /// <summary>Has the replicator move this shard's replicas if the ranking changed (<see cref="ShardReplicator.FollowRanking"/>).</summary>
    public void FollowRanking() => _replicator?.FollowRanking();

    /// <summary>Completes once every change sealed so far has been applied by the replicas.</summary>
    private ValueTask WhenReplicatedAsync()
    {
        var replicated = _replicator is { } replicator ? replicator.WhenAcknowledgedAsync(SealedSequence) : ValueTask.CompletedTask;
        if (_log is not { WaitsForDisk: true } log)
        {
            return replicated;
        }

        var written = log.WhenDurableAsync(Volatile.Read(ref _loggedTo));
        return replicated.IsCompletedSuccessfully ? written : BothAsync(replicated, written);
    }

    /// <summary>Whether the changes file has yet to put this shard's last batch on the disk, for a writer that waits for it.</summary>
    private bool AwaitsDisk => _log is { WaitsForDisk: true } log && log.Positions.Durable < Volatile.Read(ref _loggedTo);

    /// <summary>
    /// The shard's entries as migration chunks, and the sequence number they include every change up to: what a new
    /// replica starts from before it takes the batches after that number. Each chunk is taken in a turn of its own, so
    /// a large shard's callers wait for one chunk's copy at a time, not the whole shard's. Changes made between chunks
    /// may or may not be in them, but each is also in a batch after that number, which carries the key's state when it
    /// was sealed: applied in order after the chunks, they leave the replica holding what the primary holds. The cursor
    /// never skips an entry that stays (<see cref="WriteChunk"/>).
    /// </summary>
    public async Task<ShardSnapshot> SnapshotAsync(int maxChunkBytes)
    {
        long sequence;
        ShardTransactions transactions;
        lock (_turn)
        {
            SealChanges();
            sequence = _sealed;
            transactions = TransactionsForCopy();
        }

        var chunks = new List<byte[]>();
        var cursor = 0;
        var chunk = new ArrayBufferWriter<byte>();
        while (WriteChunk(ref cursor, maxChunkBytes, chunk))
        {
            chunks.Add(chunk.WrittenSpan.ToArray());
            chunk.ResetWrittenCount();

            // The turn is not fair: taken again at once, or after a trip round the thread pool, it passes from chunk to
            // chunk while a writer woken by its release is still waking (ReplicaSnapshotTests saw no writer get in).
            // A pause lets the writers in; a large shard's snapshot takes a millisecond longer per megabyte for it.
            await Task.Delay(PauseBetweenChunks).ConfigureAwait(false);
        }

        return new ShardSnapshot([.. chunks], sequence, transactions);
    }

    /// <summary>Applies a batch of another silo's primary to this shard, which holds that primary's replica.</summary>
    public void Apply(ReplicaBatch batch)
    {
        lock (_turn)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (batch.Cleared)
            {
                _budget.Release(_store.UsedBytes);
                _store.Clear();
            }

            foreach (var key in batch.Removed)
            {
                var index = _store.IndexOf(key);
                if (index >= 0)
                {
                    RemoveEntry(index);
                }
            }

            FollowHold(batch);
        }

        if (batch.Upserts is { } upserts)
        {
            Install(upserts);
        }
    }

    /// <summary>
    /// Records that <paramref name="key"/> changed in this turn: for watchers, fillers' waiters, tracking readers, and
    /// the replicas. <paramref name="written"/> is where a write left its entry in the store, or -1.
    /// </summary>
    private void Changed(ReadOnlySpan<byte> key, int written = -1)
    {
        _watches?.Changed(key);
        _fills?.Changed(key);
        ReadersChanged(key, written);
        Record(key);
    }

    /// <summary>
    /// Records a sliding renewal of <paramref name="key"/> for the replicas, not a change watchers see. Only renewals
    /// that cross into a later half-window come here (<see cref="EntryMetadata.CrossedHalfWindow"/>), so a key read
    /// constantly costs its replicas about two copies per window, and after a failover it has at least half its
    /// window left of what it had.
    /// </summary>
    private void Renewed(ReadOnlySpan<byte> key) => Record(key);

    /// <summary>Remembers <paramref name="key"/> for the batch this turn seals, when the shard has replicas.</summary>
    private void Record(ReadOnlySpan<byte> key)
    {
        if (_changed is { } changed && Recording && !changed.GetAlternateLookup<ReadOnlySpan<byte>>().Contains(key))
        {
            changed.Add(key.ToArray());
            _unsealed = true;
            // The replicator's sender wakes only when it has replicas to send to: not for the changes file alone.
            if (changed.Count == 1 && _replicator is { Recording: true } replicator)
            {
                replicator.Signal();
            }
        }
    }

    /// <summary>Records that every key changed (the shard was emptied).</summary>
    private void ChangedAll()
    {
        _watches?.ChangedAll();
        WakeFillers();
        ForgetReaders();
        if (_changed is { } changed && Recording)
        {
            changed.Clear();
            _cleared = true;
            _unsealed = true;
            if (_replicator is { Recording: true } replicator)
            {
                replicator.Signal();
            }
        }
    }

    /// <summary>
    /// Seals changes made outside a caller's turn (expiry, eviction, a flush) into the replicas' next batch, in a turn
    /// of its own.
    /// </summary>
    public void SealPendingChanges()
    {
        lock (_turn)
        {
            SealChanges();
        }
    }

    /// <summary>
    /// Seals this turn's changes into the replicator's next batch: each changed key as it is now, or removed, and the
    /// transaction holding the shard, if any, whose outcome decides whether they stay (<see cref="Hold"/>).
    /// </summary>
    private void SealChanges()
    {
        if (!_unsealed || _disposed)
        {
            return;
        }

        var changed = _changed!;
        var now = Now();
        ArrayBufferWriter<byte>? upserts = null;
        MigrationChunkWriter? chunk = null;
        List<byte[]>? removed = null;
        foreach (var key in changed)
        {
            var index = _store.IndexOf(key);
            if (index >= 0 && !_store.MetadataAt(index).IsExpiredAt(now))
            {
                upserts ??= SealingBuffer();
                chunk ??= new MigrationChunkWriter(upserts, Slot);
                chunk.Append(key, _store.ValueAt(index), _store.MetadataAt(index));
            }
            else
            {
                (removed ??= []).Add(key);
            }
        }

        chunk?.Complete();
        var sequence = ++_sealed;
        var removedKeys = removed?.ToArray() ?? [];
        var held = HeldForBatch();
        if (_log is { } log && _replicator is not { Recording: true })
        {
            // Only the changes file takes these changes, so they go to it from the shard's buffer; the replicator gets
            // the sequence alone, to answer the writers waiting for it. No replica is owed the entries: one that begins
            // later starts from a snapshot taken after this turn.
            Volatile.Write(ref _loggedTo, log.Append(Slot, _logEpoch, sequence, _cleared, upserts is null ? default : upserts.WrittenSpan, removedKeys));
            _replicator?.Enqueue(new ReplicaBatch(sequence, _cleared, null, [], _holder, held, _ended));
        }
        else
        {
            var batch = new ReplicaBatch(sequence, _cleared, upserts?.WrittenSpan.ToArray(), removedKeys, _holder, held, _ended);
            _replicator?.Enqueue(batch);
            if (_log is { } logged)
            {
                Volatile.Write(ref _loggedTo, logged.Append(Slot, _logEpoch, batch));
            }
        }

        if (upserts is not null && upserts.Capacity > MaxKeptSealingBytes)
        {
            _sealing = null;
        }

        changed.Clear();
        _cleared = false;
        _unsealed = false;
    }

    /// <summary>The buffer this turn's upserts are sealed into, emptied.</summary>
    private ArrayBufferWriter<byte> SealingBuffer()
    {
        var buffer = _sealing ??= new ArrayBufferWriter<byte>();
        buffer.ResetWrittenCount();
        return buffer;
    }
}
