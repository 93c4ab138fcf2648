namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// A membership row with the row version it was read at; pass <see cref="ETag"/> back to
/// <see cref="IMembershipTable.TryUpdateAsync"/> to change the row only if nobody else did in between.
/// </summary>
internal sealed record VersionedEntry(MembershipEntry Entry, string ETag);
