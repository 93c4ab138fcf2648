namespace Cubby.Grains.Capacity;

/// <summary>How asking a shard to evict the entry in a given block went (<see cref="Shard.TryEvictBlock"/>).</summary>
internal enum BlockEviction
{
    /// <summary>The entry was there and is gone.</summary>
    Evicted,

    /// <summary>The shard holds no entry with that key in that block: it moved or left, or the key read was torn.</summary>
    NotHere,

    /// <summary>Another thread or a transaction holds the shard; ask again later.</summary>
    Busy,
}
