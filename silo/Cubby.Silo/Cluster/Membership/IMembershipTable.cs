namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// The membership table of one cluster: a row per silo plus a table version. Every successful insert or update
/// bumps the version by exactly one, atomically with the row change and only if the version is still the one the
/// writer read (compare-and-set), so concurrent writers never lose an update: the loser gets <see langword="false"/>
/// and must read again. Heartbeats are the exception: they touch only the alive time, without a version bump, so
/// they never make a concurrent write fail (as in Orleans).
/// </summary>
internal interface IMembershipTable
{
    /// <summary>Creates the schema if needed and this cluster's version row (version 0) if missing. Idempotent.</summary>
    Task InitializeAsync(CancellationToken cancellationToken);

    /// <summary>The table version and every row, read consistently.</summary>
    /// <exception cref="InvalidOperationException">The cluster has not been initialized (or was deleted).</exception>
    Task<MembershipSnapshot> ReadAllAsync(CancellationToken cancellationToken);

    /// <summary>
    /// Adds <paramref name="entry"/> if the table is still at <paramref name="expectedVersion"/> and has no row for its
    /// silo id; <see langword="false"/> otherwise (also when the cluster is not initialized).
    /// </summary>
    Task<bool> TryInsertAsync(MembershipEntry entry, long expectedVersion, CancellationToken cancellationToken);

    /// <summary>
    /// Replaces the row of <paramref name="entry"/>'s silo if its etag is still <paramref name="etag"/> and the table
    /// is still at <paramref name="expectedVersion"/>; <see langword="false"/> on any mismatch or a missing row. The
    /// stored alive time never moves back: a heartbeat that landed after the caller's read is kept.
    /// </summary>
    Task<bool> TryUpdateAsync(MembershipEntry entry, string etag, long expectedVersion, CancellationToken cancellationToken);

    /// <summary>
    /// Records a heartbeat: sets the silo's alive time to <paramref name="at"/> unless it is already later. Changes
    /// neither the table version nor the row's etag.
    /// </summary>
    /// <exception cref="InvalidOperationException">The table has no row for <paramref name="siloId"/>.</exception>
    Task UpdateIAmAliveAsync(string siloId, DateTimeOffset at, CancellationToken cancellationToken);

    /// <summary>
    /// Deletes the rows of silos that are <see cref="SiloStatus.Dead"/> with a last heartbeat before
    /// <paramref name="deadBefore"/>, and returns how many went. Like a heartbeat it leaves the table version alone:
    /// the view is made of active silos only, so it does not change, and no concurrent write fails for it.
    /// </summary>
    Task<int> DeleteDefunctAsync(DateTimeOffset deadBefore, CancellationToken cancellationToken);

    /// <summary>Removes this cluster's rows and version (tests, tooling); <see cref="InitializeAsync"/> starts it afresh.</summary>
    Task DeleteClusterAsync(CancellationToken cancellationToken);
}
