namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// The whole table of one cluster at one moment: its version and every row, ordered by silo id (ordinal). Writes
/// based on this snapshot pass <see cref="Version"/> as their expected version.
/// </summary>
internal sealed record MembershipSnapshot(long Version, IReadOnlyList<VersionedEntry> Entries);
