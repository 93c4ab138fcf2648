using Cubby.Grains.Storage;

namespace Cubby.Grains;

internal sealed partial class Shard
{
    /// <summary>Starts loading this shard's fields: the first thing a command on one of its keys reads.</summary>
    public void PrefetchFields() => CacheLines.Prefetch(this);

    /// <summary>Starts loading what a command's turn reads next: the turn's lock, the store, the replicator.</summary>
    public void PrefetchTurn()
    {
        CacheLines.Prefetch(_turn);
        CacheLines.Prefetch(_store);
        if (_replicator is { } replicator)
        {
            CacheLines.Prefetch(replicator);
        }
    }

    /// <summary>Starts loading the table bucket a lookup of <paramref name="key"/> reads first; returns the key's hash.</summary>
    public uint PrefetchBucket(ReadOnlySpan<byte> key) => _store.PrefetchBucket(key);

    /// <summary>
    /// Starts loading the entry block the bucket of <paramref name="hash"/> points to. The table is read only in this
    /// shard's turn, since another turn may free it; when the turn is taken, nothing is loaded.
    /// </summary>
    public void PrefetchEntry(uint hash)
    {
        if (!_turn.TryEnter())
        {
            return;
        }

        try
        {
            if (!_disposed)
            {
                _store.PrefetchEntry(hash);
            }
        }
        finally
        {
            _turn.Exit();
        }
    }
}
