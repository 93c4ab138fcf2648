using Cubby.Grains.Tracking;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    private readonly KeyReaders _readers = new();

    /// <summary>Where this shard's tracked reads are counted and their invalidations sent; null without Orleans.</summary>
    public ReadTracking? Tracking { get; init; }

    /// <summary>Keys a tracking reader read here and has not been told about since.</summary>
    public int TrackedKeys => _readers.Count;

    /// <summary>
    /// Remembers, in the turn that read it, that reader <paramref name="reader"/> (a <see cref="ReadTracking"/> number)
    /// read <paramref name="key"/>: its next change, of any kind, is sent to that reader. Past the silo's limit of
    /// tracked keys, other keys of this shard are forgotten and their readers told now.
    /// </summary>
    public void TrackRead(ReadOnlySpan<byte> key, int reader)
    {
        RequireTurn();
        if (Tracking is not { } tracking || !_readers.Add(key, reader))
        {
            return;
        }

        tracking.Added(1);
        while (tracking.OverLimit && _readers.Count > 1 && _readers.AnyKey() is { } forgotten)
        {
            // Forgotten, not changed: its readers are told, listeners to its prefix have nothing to hear.
            tracking.Removed(1);
            tracking.Send(Slot, _readers.Remove(forgotten), forgotten);
        }
    }

    private void ReadersChanged(ReadOnlySpan<byte> key)
    {
        if (Tracking is not { } tracking || (_readers.IsEmpty && tracking.Broadcasts.IsEmpty))
        {
            return;
        }

        var readers = _readers.Remove(key);
        if (!readers.IsEmpty)
        {
            tracking.Removed(1);
        }

        tracking.Changed(Slot, readers, key);
    }

    /// <summary>Tells every reader of any key here that all of this shard's keys changed (a flush, or the shard leaving).</summary>
    private void ForgetReaders()
    {
        if (_readers.IsEmpty)
        {
            return;
        }

        var (readers, keys) = _readers.RemoveAll();
        Tracking!.Removed(keys);
        Tracking.Send(Slot, readers, null);
    }
}
