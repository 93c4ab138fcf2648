using Orleans;

namespace Cubby.Sharding;

/// <summary>
/// Keys whose tracked copies are stale: <see cref="Keys"/> of shard <see cref="Slot"/>, or, when <see cref="Keys"/> is
/// null, every key of that shard (it was flushed, or moved and forgot who read what); a <see cref="Slot"/> of -1 with
/// no keys is every key of every shard (the sender lost track of what it owes a reader). With an
/// <see cref="Update"/>, the one key of <see cref="Keys"/> now holds that entry: a reader that holds the key from the
/// same silo may keep the new value instead of dropping it (see <see cref="NearCacheTerms.UpdatesUpTo"/>).
/// </summary>
/// <param name="Slot">The shard, or -1 for every shard.</param>
/// <param name="Keys">The keys, or null for every key of the shard.</param>
/// <param name="Update">The key's entry after the change, or null when the reader is only told it changed.</param>
[GenerateSerializer]
[Immutable]
[Alias("cubby.key-invalidation")]
public sealed record KeyInvalidation([property: Id(0)] int Slot, [property: Id(1)] byte[][]? Keys, [property: Id(2)] ShardEntry? Update = null)
{
    /// <summary>Every key of every shard.</summary>
    public static KeyInvalidation Everything { get; } = new(-1, null);
}
