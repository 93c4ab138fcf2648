namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// Deletes the table rows of silos dead for longer than <see cref="ClusteringOptions.DefunctSiloExpiration"/>, so a
/// cluster whose silos restart for months keeps a table of its recent members only. Every silo runs it; the delete is
/// idempotent, so it needs no leader.
/// </summary>
internal sealed partial class DefunctSiloCleanup(IMembershipTable table, ClusteringOptions clustering, TimeProvider time, ILogger logger)
{
    /// <summary>Deletes the defunct rows; a failure is logged and left for the next period.</summary>
    public async Task RunAsync(CancellationToken cancellationToken)
    {
        try
        {
            var deleted = await table.DeleteDefunctAsync(time.GetUtcNow() - clustering.DefunctSiloExpiration, cancellationToken).ConfigureAwait(false);
            if (deleted > 0)
            {
                Log.Deleted(logger, deleted, clustering.DefunctSiloExpiration);
            }
        }
        catch (Exception exception) when (exception is not OutOfMemoryException && !cancellationToken.IsCancellationRequested)
        {
            Log.Failed(logger, exception);
        }
    }

    private static partial class Log
    {
        [LoggerMessage(20, LogLevel.Information, "Deleted the membership rows of {Count} silos dead for longer than {Expiration}")]
        public static partial void Deleted(ILogger logger, int count, TimeSpan expiration);

        [LoggerMessage(21, LogLevel.Warning, "Could not delete the membership rows of long-dead silos; retrying at the next period")]
        public static partial void Failed(ILogger logger, Exception exception);
    }
}
