using Cubby.Grains.Replication;

namespace Cubby.Grains.Persistence;

/// <summary>
/// Rebuilds one shard as this silo last held it, from its snapshot file and the records of the changes files read in
/// the order they were appended (docs/persistence.md, "Restart"). Changes apply on top of a base: the snapshot file
/// when no record came before, an empty shard that began here, or, for a shard that began here with entries, its
/// snapshot once the changes file says it was written (the batches since it began are held until then). A shard that
/// began with entries whose snapshot never came (the silo died first), or began empty and took no change (it may have
/// activated while every silo stopped, finding no copy), falls back to what it was before it began. A
/// snapshot of the same epoch that stands later than the records (written after the changes file stopped taking them)
/// wins over them.
/// </summary>
internal sealed class ShardRecovery(Func<Shard> create, (ShardFileStamp Stamp, List<byte[]> Chunks)? file) : IDisposable
{
    private State _state = file is { } found ? new State(Load(create, found.Chunks), found.Stamp.Epoch, found.Stamp.Sequence) : default;
    private State _fallback;
    private long? _awaitedEpoch;
    private bool _emptySince;
    private List<ReplicaBatch>? _awaited;

    /// <summary>Whether any record changed what the snapshot file holds, so the shard must be written again.</summary>
    public bool Changed { get; private set; }

    /// <summary>Whether the history has a gap before this point (a changes file cut short before the last): changes do not apply until a new base.</summary>
    public bool Gapped { get; set; }

    public void Began(long epoch, long sequence, bool empty)
    {
        Changed = true;
        if (empty)
        {
            // What it was stays until a change comes: a shard that began empty and took none says nothing (it may have
            // activated while every silo stopped, finding no copy), and must not stand for the copy at a later epoch.
            if (_emptySince || _awaitedEpoch is not null)
            {
                Replace(ref _state, default);
            }
            else
            {
                Replace(ref _fallback, _state);
            }

            (_awaitedEpoch, _awaited) = (null, null);
            _state = new State(create(), epoch, sequence);
            _emptySince = true;
            Gapped = false;
            return;
        }

        // The entries it began with are in no record here: wait for its snapshot, and keep what it was until then.
        if (_emptySince || _awaitedEpoch is not null)
        {
            Replace(ref _state, default);
        }
        else
        {
            Replace(ref _fallback, _state);
            _state = default;
        }

        _emptySince = false;

        (_awaitedEpoch, _awaited) = (epoch, []);
    }

    /// <summary>
    /// The shard began at <paramref name="epoch"/> and <paramref name="sequence"/> with exactly the entries of its snapshot
    /// file stamped <paramref name="fileEpoch"/> and <paramref name="fileSequence"/>, and wrote no new one: when that is
    /// what this history holds, the changes after the record apply to it. Otherwise (a gap, or records since the file) it
    /// is a beginning with entries whose snapshot never came.
    /// </summary>
    public void BeganFromFile(long epoch, long sequence, long fileEpoch, long fileSequence)
    {
        if (!Gapped && _awaitedEpoch is null && !_emptySince && _state.Shard is not null && _state.Epoch == fileEpoch && _state.Sequence == fileSequence)
        {
            Changed = true;
            _state = _state with { Epoch = epoch, Sequence = sequence };
            return;
        }

        Began(epoch, sequence, empty: false);
    }

    public void Batch(long epoch, ReplicaBatch batch)
    {
        Changed = true;
        if (_awaitedEpoch == epoch)
        {
            _awaited!.Add(batch);
        }
        else if (!Gapped && _state.Shard is { } shard && _state.Epoch == epoch && batch.Sequence > _state.Sequence)
        {
            shard.Apply(batch);
            _state = _state with { Sequence = batch.Sequence };
            if (_emptySince)
            {
                _emptySince = false;
                Replace(ref _fallback, default);
            }
        }
    }

    public void Saved(long epoch, long sequence)
    {
        Changed = true;
        if (file is not { } found || found.Stamp.Epoch != epoch || found.Stamp.Sequence != sequence || (_awaitedEpoch != epoch && !Gapped && _state.Shard is not null))
        {
            // An earlier snapshot, since replaced; or the one on disk while the shard's history here is whole anyway.
            return;
        }

        Replace(ref _state, new State(Load(create, found.Chunks), epoch, sequence));
        foreach (var batch in _awaitedEpoch == epoch ? _awaited! : [])
        {
            if (batch.Sequence > _state.Sequence)
            {
                _state.Shard!.Apply(batch);
                _state = _state with { Sequence = batch.Sequence };
            }
        }

        ForgetAwaited();
        Gapped = false;
    }

    public void Left()
    {
        Changed = true;
        Replace(ref _state, default);
        ForgetAwaited();
    }

    /// <summary>The shard rebuilt (null: it is not held here), with the epoch and sequence it stands at; the caller owns it.</summary>
    public (Shard? Shard, long Epoch, long Sequence) Finish()
    {
        // A snapshot written after the changes file stopped taking records (a full disk) is newer than they say.
        if (file is { Stamp: var stamp })
        {
            if (_awaitedEpoch == stamp.Epoch)
            {
                Saved(stamp.Epoch, stamp.Sequence);
            }
            else if (_awaitedEpoch is null && _state.Shard is not null && _state.Epoch == stamp.Epoch && stamp.Sequence > _state.Sequence)
            {
                Replace(ref _state, new State(Load(create, file.Value.Chunks), stamp.Epoch, stamp.Sequence));
            }
        }

        var kept = _awaitedEpoch is null && !_emptySince ? _state : _fallback;
        (kept.Shard == _state.Shard ? _fallback : _state).Shard?.Dispose();
        (_state, _fallback) = (default, default);
        return (kept.Shard, kept.Epoch, kept.Sequence);
    }

    public void Dispose()
    {
        _state.Shard?.Dispose();
        _fallback.Shard?.Dispose();
        (_state, _fallback) = (default, default);
    }

    private void ForgetAwaited()
    {
        Replace(ref _fallback, default);
        (_awaitedEpoch, _awaited, _emptySince) = (null, null, false);
    }

    private static void Replace(ref State state, State next)
    {
        if (!ReferenceEquals(state.Shard, next.Shard))
        {
            state.Shard?.Dispose();
        }

        state = next;
    }

    private static Shard Load(Func<Shard> create, List<byte[]> chunks)
    {
        var shard = create();
        try
        {
            foreach (var chunk in chunks)
            {
                shard.Install(chunk);
            }

            return shard;
        }
        catch
        {
            shard.Dispose();
            throw;
        }
    }

    private readonly record struct State(Shard? Shard, long Epoch, long Sequence);
}
