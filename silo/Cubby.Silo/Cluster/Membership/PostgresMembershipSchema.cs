using Npgsql;

namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// The PostgreSQL schema of the membership table, applied idempotently by every silo at start
/// (<see cref="PostgresMembershipTable.InitializeAsync"/>) or ahead of time by <c>cubby-silo migrate</c>.
/// </summary>
/// <remarks>
/// <para>Two tables, shared by every cluster in the database and keyed by cluster id:</para>
/// <list type="bullet">
/// <item><c>cubby_membership_version(cluster_id PK, version)</c>: one row per cluster; <c>version</c> goes up by one
/// with every insert or update of a membership row, in the same statement (compare-and-set).</item>
/// <item><c>cubby_membership(cluster_id, silo_id, host, port, generation, status, slot_count, started_at,
/// i_am_alive_at, suspicions, etag, PK(cluster_id, silo_id))</c>: one row per silo. <c>status</c> is the number of a
/// <see cref="SiloStatus"/>; <c>etag</c> is the row's own version (1 on insert, +1 per update, untouched by
/// heartbeats) and reaches callers as text; <c>suspicions</c> is a <c>jsonb</c> array of
/// <c>{"by": silo id, "at": ISO 8601 time}</c>, oldest first: one column, readable with SQL, written whole with the row.</item>
/// </list>
/// <para>
/// Unqualified names follow the connection's <c>search_path</c>, so a cluster can live in a schema of its own.
/// When both tables exist nothing else runs, so silos may use a role that can read and write the tables but not
/// create any (PostgreSQL checks the right to create even for <c>CREATE TABLE IF NOT EXISTS</c> on an existing table).
/// Otherwise the DDL runs in one transaction under a transaction-scoped advisory lock: two silos starting at once would
/// race in <c>CREATE TABLE IF NOT EXISTS</c> and one would fail with a unique violation on the catalog.
/// </para>
/// </remarks>
internal static class PostgresMembershipSchema
{
    /// <summary>The advisory lock key that serializes schema changes ("cubbymem" in ASCII).</summary>
    private const long SchemaLockKey = 0x6375_6262_796D_656D;

    private const string ExistsSql = "SELECT to_regclass('cubby_membership_version') IS NOT NULL AND to_regclass('cubby_membership') IS NOT NULL";

    private const string LockSql = "SELECT pg_advisory_xact_lock(@key)";

    // "already exists, skipping" notices are expected on every start but the first.
    private const string QuietSql = "SET LOCAL client_min_messages = warning";

    private const string CreateSql = """
        CREATE TABLE IF NOT EXISTS cubby_membership_version (
            cluster_id text PRIMARY KEY,
            version bigint NOT NULL DEFAULT 0
        );

        CREATE TABLE IF NOT EXISTS cubby_membership (
            cluster_id text NOT NULL,
            silo_id text NOT NULL,
            host text NOT NULL,
            port integer NOT NULL,
            generation bigint NOT NULL,
            status smallint NOT NULL,
            slot_count integer NOT NULL,
            started_at timestamptz NOT NULL,
            i_am_alive_at timestamptz NOT NULL,
            suspicions jsonb NOT NULL DEFAULT '[]'::jsonb,
            etag bigint NOT NULL,
            PRIMARY KEY (cluster_id, silo_id)
        );

        COMMENT ON TABLE cubby_membership_version IS 'Cubby cluster membership: one row per cluster; version goes up by one with every membership change.';
        COMMENT ON TABLE cubby_membership IS 'Cubby cluster membership: one row per silo of each cluster.';
        COMMENT ON COLUMN cubby_membership.status IS '1 Joining, 2 Active, 3 ShuttingDown, 4 Dead';
        COMMENT ON COLUMN cubby_membership.suspicions IS 'jsonb array of {"by": silo id, "at": ISO 8601 time}, oldest first';
        COMMENT ON COLUMN cubby_membership.etag IS 'The row version: 1 on insert, +1 per update; heartbeats leave it alone';
        """;

    /// <summary>Creates the membership tables in the database of <paramref name="connectionString"/> if they are missing.</summary>
    public static async Task ApplyAsync(string connectionString, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(connectionString);
        var dataSource = NpgsqlDataSource.Create(connectionString);
        await using (dataSource.ConfigureAwait(false))
        {
            await ApplyAsync(dataSource, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>Creates the membership tables through <paramref name="dataSource"/> if they are missing.</summary>
    public static async Task ApplyAsync(NpgsqlDataSource dataSource, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(dataSource);
        var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using (connection.ConfigureAwait(false))
        {
            var exists = new NpgsqlCommand(ExistsSql, connection);
            await using (exists.ConfigureAwait(false))
            {
                if (await exists.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) is true)
                {
                    return;
                }
            }

            var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);
            await using (transaction.ConfigureAwait(false))
            {
                var batch = new NpgsqlBatch(connection, transaction)
                {
                    BatchCommands =
                    {
                        new NpgsqlBatchCommand(LockSql) { Parameters = { new NpgsqlParameter<long>("key", SchemaLockKey) } },
                        new NpgsqlBatchCommand(QuietSql),
                    },
                };
                await using (batch.ConfigureAwait(false))
                {
                    await batch.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
                }

                var create = new NpgsqlCommand(CreateSql, connection, transaction);
                await using (create.ConfigureAwait(false))
                {
                    await create.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
                }

                await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
            }
        }
    }
}
