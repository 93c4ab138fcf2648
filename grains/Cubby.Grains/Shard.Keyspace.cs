using Cubby.Grains.Storage;
using Cubby.Sharding;

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

    /// <summary>
    /// A live key picked at random (RANDOMKEY), or null when the shard holds none. Expired entries met on the way are
    /// collected, so a shard of expired entries answers null in one walk.
    /// </summary>
    public byte[]? RandomKey()
    {
        lock (_turn)
        {
            var now = Now();
            while (_store.Count > 0)
            {
                var index = Random.Shared.Next(_store.Count);
                if (!_store.MetadataAt(index).IsExpiredAt(now))
                {
                    return _store.KeyAt(index).ToArray();
                }

                RemoveEntry(index);
                _expired++;
            }

            return null;
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
            ChangedAll();
            return count;
        }
    }
}
