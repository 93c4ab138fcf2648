namespace Cubby.Grains.Replication;

/// <summary>
/// How far a replica has followed its primary: the primary's epoch and the last batch applied. Of two replicas of a
/// shard, the greater position holds every write the other's primary acknowledged, so a shard that resumes takes the
/// greatest it can find.
/// </summary>
/// <param name="Epoch">The epoch of the primary the replica follows.</param>
/// <param name="Sequence">The last of that primary's batches the replica applied.</param>
[GenerateSerializer]
[Immutable]
[Alias("cubby.replica-position")]
internal readonly record struct ReplicaPosition([property: Id(0)] long Epoch, [property: Id(1)] long Sequence) : IComparable<ReplicaPosition>
{
    public int CompareTo(ReplicaPosition other) =>
        Epoch != other.Epoch ? Epoch.CompareTo(other.Epoch) : Sequence.CompareTo(other.Sequence);
}

/// <summary>A replica handed over to the shard's new primary on another silo: where it stood, and its entries.</summary>
/// <param name="Position">Where the replica stood when handed over.</param>
/// <param name="Chunks">Its entries as migration chunks.</param>
/// <param name="Transactions">The transaction whose outcome the replica had yet to learn, if any, and how others ended.</param>
[GenerateSerializer]
[Immutable]
[SuppressReferenceTracking]
[Alias("cubby.replica-copy")]
internal sealed record ReplicaCopy([property: Id(0)] ReplicaPosition Position, [property: Id(1)] byte[][] Chunks, [property: Id(2)] ShardTransactions Transactions);
