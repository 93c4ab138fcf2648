using Cubby.Grains.Tracking;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    // Made when first needed: a write to a shard no tracking reader has read costs a null check, not visits to two more objects.
    private KeyReaders? _readers;
    private UntoldReaders? _untold;
    private bool _isReplica;

    // Set in the turn that installs a migrated entry.
    private bool _installing;

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

    private void ReadersChanged(ReadOnlySpan<byte> key)
    {
        if (Tracking is not { } tracking || (_readers is not { IsEmpty: false } && tracking.Broadcasts.IsEmpty) || IsReplica || _installing)
        {
            return;
        }

        var readers = _readers?.Remove(key) ?? default;
        if (!readers.IsEmpty)
        {
            tracking.Removed(1);
        }

        tracking.Changed(Slot, readers, key, _untold ??= new());
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
