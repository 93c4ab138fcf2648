namespace Cubby.Grains.Hashes;

/// <summary>Computes a hash's new fields from its current ones (HSET, HDEL, HINCRBY, ...) inside the shard's turn.</summary>
internal interface IHashEdit
{
    /// <summary>
    /// Writes the new fields into <paramref name="next"/>; returns false to leave the hash as it is (nothing to change,
    /// or an error the edit keeps to report). May run again, from the start, when eviction had to make room first.
    /// </summary>
    bool Apply(HashFields current, ref HashBuilder next);
}
