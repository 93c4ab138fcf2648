using Microsoft.Extensions.Diagnostics.HealthChecks;
using Npgsql;

namespace Cubby.Aspire.Hosting.Postgres;

/// <summary>Healthy once the resource's database answers a query over its connection string.</summary>
internal sealed class LocalPostgresHealthCheck(LocalPostgresResource postgres) : IHealthCheck
{
    public async Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        try
        {
            var connectionString = await postgres.ConnectionStringExpression.GetValueAsync(cancellationToken).ConfigureAwait(false);
            // No pool: a probe's idle connections would outlive it in a server that only lives for a run.
            var connection = new NpgsqlConnection(new NpgsqlConnectionStringBuilder(connectionString) { Pooling = false }.ConnectionString);
            await using (connection.ConfigureAwait(false))
            {
                await connection.OpenAsync(cancellationToken).ConfigureAwait(false);
                var command = new NpgsqlCommand("SELECT 1", connection);
                await using (command.ConfigureAwait(false))
                {
                    await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false);
                }
            }

            return HealthCheckResult.Healthy();
        }
        catch (Exception exception) when (exception is NpgsqlException or InvalidOperationException or TimeoutException)
        {
            return HealthCheckResult.Unhealthy($"{postgres.Name} does not answer yet: {exception.Message}", exception);
        }
    }
}
