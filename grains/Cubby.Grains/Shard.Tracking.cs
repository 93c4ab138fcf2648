using Cubby.Grains.Tracking;
using Cubby.Sharding;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    // Made when first needed: a write to a shard no tracking reader has read costs a null check, not visits to two more objects.
    private KeyReaders? _readers;
    private UntoldReaders? _untold;
    private bool _isReplica;

    // Set in the turn that installs a migrated entry.
    private bool _installing;

    // Set for the turn of a batch's write: the near cache of the client writing, and where its copy goes on its link.
    private int _writer = -1;
    private NearCachePosition _writerCopyAt;
    private ShardEntry? _writerCopy;

    /// <summary>Where this shard's tracked reads are counted and their invalidations sent; null without Orleans.</summary>
    public ReadTracking? Tracking { get; init; }

    /// <summary>
    /// Whether this is another silo's primary's copy: its changes are the primary's, which tells their readers. Set
    /// while it is kept as a replica, cleared when it is promoted to be the shard itself.
    /// </summary>
    public bool IsReplica
    {
        get => Volatile.Read(ref _isReplica);
        set => Volatile.Write(ref _isReplica, value);
    }

    /// <summary>Keys a tracking reader read here and has not been told about since.</summary>
    public int TrackedKeys => _readers?.Count ?? 0;

    /// <summary>
    /// Remembers, in the turn that read it, that reader <paramref name="reader"/> (a <see cref="ReadTracking"/> number)
    /// read <paramref name="key"/>: its next change, of any kind, is sent to that reader. Past the silo's limit of
    /// tracked keys, other keys of this shard are forgotten and their readers told now. Returns false when this shard
    /// tracks nothing (no Orleans around it), so the reader must not keep what it read.
    /// </summary>
    public bool TrackRead(ReadOnlySpan<byte> key, int reader)
    {
        RequireTurn();
        if (Tracking is not { } tracking)
        {
            return false;
        }

        var readers = _readers ??= new();
        if (!readers.Add(key, reader))
        {
            return true;
        }

        tracking.Added(1);
        while (tracking.OverLimit && readers.Count > 1 && readers.AnyKey() is { } forgotten)
        {
            // Forgotten, not changed: its readers are told, listeners to its prefix have nothing to hear.
            tracking.Removed(1);
            tracking.Send(Slot, readers.Remove(forgotten), forgotten, untold: null);
        }

        return true;
    }

    /// <summary>
    /// Marks the writes of this turn as made by the client of near cache <paramref name="reader"/> (a
    /// <see cref="ReadTracking"/> number): when it holds a key they change and waits for changes, it is sent nothing and
    /// its client is answered with the new entry instead (<see cref="TakeWriterCopy"/>), saving a message and its answer.
    /// </summary>
    public void WritesFor(int reader)
    {
        RequireTurn();
        _writer = reader;
    }

    /// <summary>
    /// The entry the writer of this turn's write puts in its near cache itself, and where it stands among what the
    /// near cache's link sends; null when it was sent to it, or it holds none. Ends what <see cref="WritesFor"/> began.
    /// </summary>
    public (NearCachePosition At, ShardEntry Entry)? TakeWriterCopy()
    {
        RequireTurn();
        (NearCachePosition, ShardEntry)? copy = _writerCopy is { } entry ? (_writerCopyAt, entry) : null;
        (_writer, _writerCopyAt, _writerCopy) = (-1, default, null);
        return copy;
    }

    /// <summary>
    /// Tells the readers of <paramref name="key"/> it changed; when a write left it at <paramref name="written"/> (an
    /// index in the store, else -1), the near caches that take such values get the new entry and stay its readers.
    /// </summary>
    private void ReadersChanged(ReadOnlySpan<byte> key, int written)
    {
        if (Tracking is not { } tracking || (_readers is not { IsEmpty: false } && tracking.Broadcasts.IsEmpty) || IsReplica || _installing)
        {
            return;
        }

        var readers = _readers?.Remove(key) ?? default;
        ShardEntry? update = null;
        if (!readers.IsEmpty)
        {
            tracking.Removed(1);
            update = written >= 0 ? UpdateAt(written, tracking.LargestUpdate) : null;
        }

        var kept = tracking.Changed(Slot, readers, key, _untold ??= new(), update, _writer, out var writerAt);
        if (writerAt is { } at)
        {
            (_writerCopyAt, _writerCopy) = (at, update);
        }

        if (!kept.IsEmpty)
        {
            _readers!.Set(key, kept);
            tracking.Added(1);
        }
    }

    /// <summary>The string entry at <paramref name="index"/> as a reader would read it, when its value is at most <paramref name="largest"/> bytes.</summary>
    private ShardEntry? UpdateAt(int index, int largest)
    {
        var value = _store.ValueAt(index);
        ref readonly var metadata = ref _store.MetadataAt(index);
        return metadata.Kind == EntryKind.String && value.Length <= largest
            ? new ShardEntry(value.ToArray(), (CacheEntryFlags)metadata.Flags, metadata.TimeToLive(Now()), metadata.SlidingWindow)
            : null;
    }

    /// <summary>
    /// Tells every reader of any key here that all of this shard's keys changed, as the shard leaves this silo, and
    /// completes once each near cache told took it (or its leases from before ran out): the shard's new home does not
    /// know who read its keys here, so it must not answer a write before they stopped serving what they read.
    /// </summary>
    public ValueTask ForgetReadersAsync()
    {
        UntoldReaders? untold;
        lock (_turn)
        {
            ForgetReaders();
            untold = _untold;
        }

        return untold is { IsEmpty: false } ? untold.WhenToldAsync() : ValueTask.CompletedTask;
    }

    /// <summary>Tells every reader of any key here that all of this shard's keys changed (a flush, or the shard leaving).</summary>
    private void ForgetReaders()
    {
        if (_readers is not { IsEmpty: false } tracked)
        {
            return;
        }

        var (readers, keys) = tracked.RemoveAll();
        Tracking!.Removed(keys);
        Tracking.Send(Slot, readers, null, _untold ??= new());
    }
}
