namespace Cubby.Grains.Capacity;

/// <summary>How asking a shard to move the entry out of a block of a page being emptied went (<see cref="Shard.TryMoveBlock"/>).</summary>
internal enum BlockMove
{
    /// <summary>The entry was there and now lives in another block.</summary>
    Moved,

    /// <summary>The entry was there, expired, and is gone.</summary>
    Removed,

    /// <summary>The shard holds no entry with that key in that block: it moved or left, or the key read was torn.</summary>
    NotHere,

    /// <summary>Another thread or a transaction holds the shard; ask again later.</summary>
    Busy,
}
