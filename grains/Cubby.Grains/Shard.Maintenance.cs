using Cubby.Grains.Capacity;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    /// <summary>
    /// One step of active expiry: looks at up to <paramref name="samples"/> random entries and removes the expired ones.
    /// </summary>
    /// <returns>How many were removed, and how many of the sampled entries had an expiry at all.</returns>
    public (int Removed, int WithExpiry) RemoveExpiredSample(int samples)
    {
        lock (_turn)
        {
            var now = Now();
            var removed = 0;
            var withExpiry = 0;
            for (var i = 0; i < samples && _store.Count > 0; i++)
            {
                var index = Random.Shared.Next(_store.Count);
                ref var metadata = ref _store.MetadataAt(index);
                if (!metadata.HasExpiry)
                {
                    continue;
                }

                withExpiry++;
                if (metadata.IsExpiredAt(now))
                {
                    RemoveEntry(index);
                    removed++;
                }
            }

            _expired += removed;
            return (removed, withExpiry);
        }
    }

    /// <summary>The full sweep: removes every expired entry. Returns how many.</summary>
    public int RemoveAllExpired()
    {
        lock (_turn)
        {
            var now = Now();
            var removed = 0;
            for (var index = _store.Count - 1; index >= 0; index--)
            {
                if (_store.MetadataAt(index).IsExpiredAt(now))
                {
                    RemoveEntry(index);
                    removed++;
                }
            }

            _expired += removed;
            return removed;
        }
    }

    /// <summary>
    /// Frees memory by removing one entry chosen from <paramref name="samples"/> random ones: an expired entry if the
    /// sample has one, else the least recently used (approximate LRU, as Redis samples). <paramref name="freed"/> is the
    /// bytes freed, 0 when the shard is empty. False, freeing nothing, when another thread holds the shard's turn.
    /// </summary>
    /// <remarks>
    /// A writer evicts while it holds its own shard's turn (a command runs whole inside it), so taking another
    /// shard's turn must never wait: two writers evicting from each other's shards would deadlock.
    /// </remarks>
    public bool TryEvictOne(int samples, out long freed)
    {
        freed = 0;
        if (!_turn.TryEnter())
        {
            return false;
        }

        if (!IsFreeForCaller())
        {
            // A transaction holds it: evicting one of its keys mid-transaction would break its isolation.
            _turn.Exit();
            return false;
        }

        try
        {
            if (_store.Count == 0)
            {
                return true;
            }

            var now = Now();
            var victim = -1;
            var oldest = uint.MaxValue;
            for (var i = 0; i < samples; i++)
            {
                var index = Random.Shared.Next(_store.Count);
                ref var metadata = ref _store.MetadataAt(index);
                if (metadata.IsExpiredAt(now))
                {
                    victim = index;
                    _expired++;
                    break;
                }

                if (metadata.LastAccess <= oldest)
                {
                    oldest = metadata.LastAccess;
                    victim = index;
                }
            }

            var before = _store.UsedBytes;
            if (!_store.MetadataAt(victim).IsExpiredAt(now))
            {
                _evicted++;
            }

            RemoveEntry(victim);
            freed = before - _store.UsedBytes;
            return true;
        }
        finally
        {
            _turn.Exit();
        }
    }

    /// <summary>
    /// Moves the entry with <paramref name="key"/> to another block if it lives in the block at <paramref name="block"/>:
    /// one of a slab page being emptied. An expired entry is removed instead. Never waits for the turn, for the reason
    /// <see cref="TryEvictOne"/> gives.
    /// </summary>
    public BlockMove TryMoveBlock(ReadOnlySpan<byte> key, nint block)
    {
        if (!_turn.TryEnter())
        {
            return BlockMove.Busy;
        }

        try
        {
            if (_disposed)
            {
                return BlockMove.NotHere;
            }

            if (!IsFreeForCaller())
            {
                return BlockMove.Busy;
            }

            var index = _store.IndexOf(key);
            if (index < 0 || !_store.HoldsBlockAt(index, block))
            {
                return BlockMove.NotHere;
            }

            if (_store.MetadataAt(index).IsExpiredAt(Now()))
            {
                _expired++;
                RemoveEntry(index);
                return BlockMove.Removed;
            }

            _store.MoveBlock(index);
            return BlockMove.Moved;
        }
        finally
        {
            _turn.Exit();
        }
    }
}
