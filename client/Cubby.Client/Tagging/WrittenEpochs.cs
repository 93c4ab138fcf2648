using Cubby.Client.NearCaching;

namespace Cubby.Client.Tagging;

/// <summary>
/// The epochs an entry was written under, one per tag it carries (and <c>"*"</c>'s, when it carries that), each with its
/// epoch key: while each key holds the same epoch, no removal of the tag came since. Remembers the near cache's entries
/// that held each epoch at the last check: while one may still be served, nothing changed its tag, and no lookup is
/// needed, so a local hit checks its tags without one. Once all held, the check is stamped with the near cache's count
/// of dropped tag keys, shards and links and the earliest end of the entries' leases: until either moves, the next
/// check is one comparison of each, whatever the number of tags.
/// </summary>
internal sealed class WrittenEpochs
{
    private readonly (string Key, long Epoch)[] _epochs;
    private readonly NearCacheEntry?[] _heldBy;
    private Stamp? _stamp;

    public WrittenEpochs(TaggedHeader header)
    {
        CarriesAll = header.AllEpoch != 0;
        _epochs = new (string, long)[header.Tags.Length + (CarriesAll ? 1 : 0)];
        if (CarriesAll)
        {
            _epochs[0] = (TagEpochs.AllKey, header.AllEpoch);
        }

        for (var i = 0; i < header.Tags.Length; i++)
        {
            _epochs[^(header.Tags.Length - i)] = (TagEpochs.KeyOf(header.Tags[i].Tag), header.Tags[i].Epoch);
        }

        _heldBy = new NearCacheEntry?[_epochs.Length];
    }

    /// <summary>Whether the entry carries <c>"*"</c>, as every HybridCache entry does.</summary>
    public bool CarriesAll { get; }

    /// <summary>Whether every epoch still holds; null when one of them is not kept here and must be asked for.</summary>
    public bool? IsCurrentKept(TagEpochs epochs)
    {
        if (_stamp is { } stamp && epochs.Unchanged(stamp.Changes, stamp.ValidUntil))
        {
            return true;
        }

        // Read before the entries: a drop counted after this read spoils the stamp, one counted before shows in them.
        var changes = epochs.Changes;
        var validUntil = long.MaxValue;
        var held = _heldBy;
        for (var i = 0; i < held.Length; i++)
        {
            if (held[i] is not { } entry || !epochs.StillHolds(entry))
            {
                var (key, epoch) = _epochs[i];
                if (!epochs.TryGetKept(key, out var current, out entry))
                {
                    return null;
                }

                if (current != epoch)
                {
                    return false;
                }

                held[i] = entry;
            }

            validUntil = Math.Min(validUntil, entry.ExpiresAt == 0 ? entry.Link.ValidUntil : Math.Min(entry.ExpiresAt, entry.Link.ValidUntil));
        }

        _stamp = new Stamp(changes, validUntil);
        return true;
    }

    /// <summary>A check that found every epoch held: the count of drops then, and when the first entry's lease or life ends.</summary>
    private sealed record Stamp(long Changes, long ValidUntil);

    /// <summary>Whether every epoch still holds, asking the cluster for those not kept here.</summary>
    public async ValueTask<bool> IsCurrentAsync(TagEpochs epochs, CancellationToken cancellationToken)
    {
        foreach (var (key, epoch) in _epochs)
        {
            if (await epochs.CurrentAsync(key, cancellationToken).ConfigureAwait(false) != epoch)
            {
                return false;
            }
        }

        return true;
    }
}
