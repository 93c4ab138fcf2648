using Cubby.Grains.Storage;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    /// <summary>
    /// Gives every live key (of <paramref name="kind"/> only, when given) to <paramref name="sink"/> in one turn, so the
    /// set is a consistent snapshot.
    /// </summary>
    public void VisitKeys<TSink>(ref TSink sink, EntryKind? kind = null)
        where TSink : IKeySink, allows ref struct
    {
        lock (_turn)
        {
            var now = Now();

            // Backwards, so a removal (which moves the last entry into the hole) never skips an unvisited entry.
            for (var index = _store.Count - 1; index >= 0; index--)
            {
                if (_store.MetadataAt(index).IsExpiredAt(now))
                {
                    RemoveEntry(index);
                    _expired++;
                }
                else if (kind is null || _store.MetadataAt(index).Kind == kind)
                {
                    sink.Add(_store.KeyAt(index));
                }
            }
        }
    }

    /// <summary>Entries held that have an expiry, including expired ones not yet collected (INFO's <c>expires</c>).</summary>
    public int CountWithExpiry()
    {
        lock (_turn)
        {
            var count = 0;
            for (var index = 0; index < _store.Count; index++)
            {
                if (_store.MetadataAt(index).HasExpiry)
                {
                    count++;
                }
            }

            return count;
        }
    }

    /// <summary>Removes every entry; returns how many there were.</summary>
    public int Clear()
    {
        lock (_turn)
        {
            if (_disposed)
            {
                return 0;
            }

            var count = _store.Count;
            _budget.Release(_store.UsedBytes);
            _store.Clear();
            _watches.ChangedAll();
            return count;
        }
    }
}
