using System.Globalization;
using Npgsql;
using NpgsqlTypes;

namespace Cubby.Silo.Cluster.Membership;

/// <summary>
/// The membership table of one cluster in PostgreSQL (schema: <see cref="PostgresMembershipSchema"/>). Every write is a
/// single statement, so it is atomic without an explicit transaction: it locks the cluster's version row only if the
/// version is still the expected one (<c>SELECT ... FOR UPDATE</c>, which re-checks the condition against the newest
/// row after waiting for a concurrent writer), changes the membership row only under that lock, and bumps the
/// version only if the row changed. Concurrent writers therefore queue on the version row and all but the first see
/// a version that moved on.
/// </summary>
internal sealed class PostgresMembershipTable : IMembershipTable, IAsyncDisposable
{
    private const string EnsureVersionRowSql = """
        INSERT INTO cubby_membership_version (cluster_id, version) VALUES (@cluster_id, 0)
        ON CONFLICT (cluster_id) DO NOTHING
        """;

    // One statement, one snapshot: the version and the rows always belong together.
    private const string ReadAllSql = """
        SELECT v.version, m.silo_id, m.host, m.port, m.generation, m.status, m.slot_count,
               m.started_at, m.i_am_alive_at, m.suspicions, m.etag
        FROM cubby_membership_version AS v
        LEFT JOIN cubby_membership AS m ON m.cluster_id = v.cluster_id
        WHERE v.cluster_id = @cluster_id
        ORDER BY m.silo_id COLLATE "C"
        """;

    private const string InsertSql = """
        WITH expected AS (
            SELECT version FROM cubby_membership_version
            WHERE cluster_id = @cluster_id AND version = @expected_version
            FOR UPDATE
        ), inserted AS (
            INSERT INTO cubby_membership (cluster_id, silo_id, host, port, generation, status, slot_count,
                                          started_at, i_am_alive_at, suspicions, etag)
            SELECT @cluster_id, @silo_id, @host, @port, @generation, @status, @slot_count,
                   @started_at, @i_am_alive_at, @suspicions, 1
            FROM expected
            ON CONFLICT (cluster_id, silo_id) DO NOTHING
            RETURNING 1
        )
        UPDATE cubby_membership_version SET version = version + 1
        WHERE cluster_id = @cluster_id AND EXISTS (SELECT 1 FROM inserted)
        """;

    // The alive time keeps the later value: a heartbeat may have landed after the writer read the row.
    private const string UpdateSql = """
        WITH expected AS (
            SELECT version FROM cubby_membership_version
            WHERE cluster_id = @cluster_id AND version = @expected_version
            FOR UPDATE
        ), updated AS (
            UPDATE cubby_membership
            SET host = @host, port = @port, generation = @generation, status = @status, slot_count = @slot_count,
                started_at = @started_at, i_am_alive_at = GREATEST(i_am_alive_at, @i_am_alive_at),
                suspicions = @suspicions, etag = etag + 1
            WHERE cluster_id = @cluster_id AND silo_id = @silo_id AND etag = @etag
              AND EXISTS (SELECT 1 FROM expected)
            RETURNING 1
        )
        UPDATE cubby_membership_version SET version = version + 1
        WHERE cluster_id = @cluster_id AND EXISTS (SELECT 1 FROM updated)
        """;

    private const string UpdateIAmAliveSql = """
        UPDATE cubby_membership SET i_am_alive_at = GREATEST(i_am_alive_at, @i_am_alive_at)
        WHERE cluster_id = @cluster_id AND silo_id = @silo_id
        """;

    private const string DeleteDefunctSql = """
        DELETE FROM cubby_membership WHERE cluster_id = @cluster_id AND status = @dead AND i_am_alive_at < @dead_before
        """;

    private const string DeleteClusterSql = """
        WITH rows AS (DELETE FROM cubby_membership WHERE cluster_id = @cluster_id)
        DELETE FROM cubby_membership_version WHERE cluster_id = @cluster_id
        """;

    private readonly NpgsqlDataSource _dataSource;
    private readonly string _clusterId;

    /// <summary>A table for the cluster <paramref name="clusterId"/> in the database of <paramref name="connectionString"/>.</summary>
    public PostgresMembershipTable(string clusterId, string connectionString)
    {
        ArgumentException.ThrowIfNullOrEmpty(clusterId);
        ArgumentException.ThrowIfNullOrEmpty(connectionString);
        _clusterId = clusterId;
        _dataSource = NpgsqlDataSource.Create(connectionString);
    }

    /// <summary>The cluster this table belongs to.</summary>
    public string ClusterId => _clusterId;

    /// <inheritdoc />
    public async Task InitializeAsync(CancellationToken cancellationToken)
    {
        await PostgresMembershipSchema.ApplyAsync(_dataSource, cancellationToken).ConfigureAwait(false);
        var command = Command(EnsureVersionRowSql);
        await using (command.ConfigureAwait(false))
        {
            await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <inheritdoc />
    public async Task<MembershipSnapshot> ReadAllAsync(CancellationToken cancellationToken)
    {
        var command = Command(ReadAllSql);
        await using (command.ConfigureAwait(false))
        {
            NpgsqlDataReader reader;
            try
            {
                reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (PostgresException exception) when (exception.SqlState == PostgresErrorCodes.UndefinedTable)
            {
                throw MembershipErrors.NotInitialized(_clusterId, exception);
            }

            await using (reader.ConfigureAwait(false))
            {
                if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
                {
                    throw MembershipErrors.NotInitialized(_clusterId);
                }

                var version = reader.GetInt64(0);
                var entries = new List<VersionedEntry>();
                do
                {
                    if (!reader.IsDBNull(1))
                    {
                        entries.Add(ReadEntry(reader));
                    }
                }
                while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false));

                return new MembershipSnapshot(version, entries);
            }
        }
    }

    /// <inheritdoc />
    public async Task<bool> TryInsertAsync(MembershipEntry entry, long expectedVersion, CancellationToken cancellationToken)
    {
        var normalized = MembershipEntryRules.Normalize(entry);
        var command = Command(InsertSql);
        await using (command.ConfigureAwait(false))
        {
            AddEntry(command.Parameters, normalized);
            command.Parameters.Add(new NpgsqlParameter<long>("expected_version", expectedVersion));
            return await ExecuteCompareAndSetAsync(command, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <inheritdoc />
    public async Task<bool> TryUpdateAsync(MembershipEntry entry, string etag, long expectedVersion, CancellationToken cancellationToken)
    {
        var normalized = MembershipEntryRules.Normalize(entry);
        ArgumentNullException.ThrowIfNull(etag);
        if (!long.TryParse(etag, NumberStyles.None, CultureInfo.InvariantCulture, out var rowVersion))
        {
            return false; // Not an etag this table hands out, so it cannot match.
        }

        var command = Command(UpdateSql);
        await using (command.ConfigureAwait(false))
        {
            AddEntry(command.Parameters, normalized);
            command.Parameters.Add(new NpgsqlParameter<long>("expected_version", expectedVersion));
            command.Parameters.Add(new NpgsqlParameter<long>("etag", rowVersion));
            return await ExecuteCompareAndSetAsync(command, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <inheritdoc />
    public async Task UpdateIAmAliveAsync(string siloId, DateTimeOffset at, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(siloId);
        var command = Command(UpdateIAmAliveSql);
        await using (command.ConfigureAwait(false))
        {
            command.Parameters.Add(new NpgsqlParameter<string>("silo_id", siloId));
            command.Parameters.Add(new NpgsqlParameter<DateTimeOffset>("i_am_alive_at", MembershipEntryRules.Normalize(at)));
            int changed;
            try
            {
                changed = await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (PostgresException exception) when (exception.SqlState == PostgresErrorCodes.UndefinedTable)
            {
                changed = 0;
            }

            if (changed == 0)
            {
                throw MembershipErrors.UnknownSilo(_clusterId, siloId);
            }
        }
    }

    /// <inheritdoc />
    public async Task<int> DeleteDefunctAsync(DateTimeOffset deadBefore, CancellationToken cancellationToken)
    {
        var command = Command(DeleteDefunctSql);
        await using (command.ConfigureAwait(false))
        {
            command.Parameters.Add(new NpgsqlParameter<short>("dead", (short)SiloStatus.Dead));
            command.Parameters.Add(new NpgsqlParameter<DateTimeOffset>("dead_before", MembershipEntryRules.Normalize(deadBefore)));
            try
            {
                return await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (PostgresException exception) when (exception.SqlState == PostgresErrorCodes.UndefinedTable)
            {
                return 0;
            }
        }
    }

    /// <inheritdoc />
    public async Task DeleteClusterAsync(CancellationToken cancellationToken)
    {
        var command = Command(DeleteClusterSql);
        await using (command.ConfigureAwait(false))
        {
            try
            {
                await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (PostgresException exception) when (exception.SqlState == PostgresErrorCodes.UndefinedTable)
            {
                // No schema, so no rows of this cluster either.
            }
        }
    }

    /// <summary>Closes the table's connections.</summary>
    public ValueTask DisposeAsync() => _dataSource.DisposeAsync();

    private NpgsqlCommand Command(string sql)
    {
        var command = _dataSource.CreateCommand(sql);
        command.Parameters.Add(new NpgsqlParameter<string>("cluster_id", _clusterId));
        return command;
    }

    private static void AddEntry(NpgsqlParameterCollection parameters, MembershipEntry entry)
    {
        parameters.Add(new NpgsqlParameter<string>("silo_id", entry.SiloId));
        parameters.Add(new NpgsqlParameter<string>("host", entry.Host));
        parameters.Add(new NpgsqlParameter<int>("port", entry.Port));
        parameters.Add(new NpgsqlParameter<long>("generation", entry.Generation));
        parameters.Add(new NpgsqlParameter<short>("status", (short)entry.Status));
        parameters.Add(new NpgsqlParameter<int>("slot_count", entry.SlotCount));
        parameters.Add(new NpgsqlParameter<DateTimeOffset>("started_at", entry.StartedAt));
        parameters.Add(new NpgsqlParameter<DateTimeOffset>("i_am_alive_at", entry.IAmAliveAt));
        parameters.Add(new NpgsqlParameter<string>("suspicions", NpgsqlDbType.Jsonb) { TypedValue = PostgresSuspicions.ToJson(entry.Suspicions) });
    }

    /// <summary>
    /// Runs an insert or update statement; it reports one changed row (the version's) exactly when it succeeded. A
    /// deadlock or serialization failure means another writer won, which is a plain "no" to the caller, as is a
    /// database without the schema (not initialized).
    /// </summary>
    private static async Task<bool> ExecuteCompareAndSetAsync(NpgsqlCommand command, CancellationToken cancellationToken)
    {
        try
        {
            return await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false) == 1;
        }
        catch (PostgresException exception) when (exception.SqlState is PostgresErrorCodes.DeadlockDetected or PostgresErrorCodes.SerializationFailure or PostgresErrorCodes.UndefinedTable)
        {
            return false;
        }
    }

    private static VersionedEntry ReadEntry(NpgsqlDataReader reader)
    {
        var entry = new MembershipEntry(
            SiloId: reader.GetString(1),
            Host: reader.GetString(2),
            Port: reader.GetInt32(3),
            Generation: reader.GetInt64(4),
            Status: (SiloStatus)reader.GetInt16(5),
            SlotCount: reader.GetInt32(6),
            StartedAt: reader.GetFieldValue<DateTimeOffset>(7),
            IAmAliveAt: reader.GetFieldValue<DateTimeOffset>(8),
            Suspicions: PostgresSuspicions.FromJson(reader.GetString(9)));
        return new VersionedEntry(entry, reader.GetInt64(10).ToString(CultureInfo.InvariantCulture));
    }
}
