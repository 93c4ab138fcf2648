using System.Reflection;
using Cubby.Silo.Hosting;
using Npgsql;

namespace Cubby.Silo.Clustering.Postgres;

/// <summary>
/// Cubby's PostgreSQL schema for Orleans' ADO.NET clustering and reminders providers (invariant <c>Npgsql</c>):
/// the <c>OrleansQuery</c> catalogue the providers load their statements from, the membership and reminders tables,
/// and the functions behind the membership compare-and-set writes.
/// </summary>
/// <remarks>
/// The scripts travel as embedded resources named <c>Cubby.Silo.Clustering.Postgres.Sql.&lt;file&gt;</c> and are
/// applied in file-name order. Each is idempotent, so every silo can apply them at start. Unqualified names follow
/// the connection's <c>search_path</c>.
/// </remarks>
internal static class PostgresSchema
{
    private const string ResourcePrefix = "Cubby.Silo.Clustering.Postgres.Sql.";

    /// <summary>The advisory lock key that serializes schema changes ("cubbyorl" in ASCII).</summary>
    /// <remarks>
    /// Two silos starting at once would otherwise race: concurrent <c>CREATE TABLE IF NOT EXISTS</c> fails with a
    /// unique violation on the catalog, and concurrent <c>CREATE OR REPLACE FUNCTION</c> with "tuple concurrently updated".
    /// </remarks>
    private const long SchemaLockKey = 0x6375_6262_796F_726C;

    private const string LockSql = "SELECT pg_advisory_xact_lock(@key)";

    // "already exists, skipping" notices are expected on every start but the first.
    private const string QuietSql = "SET LOCAL client_min_messages = warning";

    /// <summary>The scripts in the order they are applied: the file name (e.g. <c>01-queries-table.sql</c>) and its SQL.</summary>
    public static IReadOnlyList<KeyValuePair<string, string>> Scripts { get; } = LoadScripts();

    /// <summary>
    /// Applies every script to the database of <paramref name="connectionString"/> in one transaction, so a failure
    /// leaves the schema as it was.
    /// </summary>
    /// <exception cref="SiloStartException">The database could not be reached or refused a script; the message names the setting.</exception>
    public static async Task ApplyAsync(string connectionString, CancellationToken cancellationToken)
    {
        try
        {
            await ApplyScriptsAsync(connectionString, cancellationToken).ConfigureAwait(false);
        }
        catch (NpgsqlException exception)
        {
            throw new SiloStartException($"Cubby:Clustering:ConnectionString: cannot apply Cubby's schema to the database: {exception.Message}", exception);
        }
    }

    private static async Task ApplyScriptsAsync(string connectionString, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(connectionString);
        var connection = new NpgsqlConnection(connectionString);
        await using (connection.ConfigureAwait(false))
        {
            await connection.OpenAsync(cancellationToken).ConfigureAwait(false);
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

                foreach (var script in Scripts)
                {
                    var command = new NpgsqlCommand(script.Value, connection, transaction);
                    await using (command.ConfigureAwait(false))
                    {
                        await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
                    }
                }

                await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
            }
        }
    }

    private static KeyValuePair<string, string>[] LoadScripts()
    {
        var assembly = typeof(PostgresSchema).Assembly;
        var scripts = assembly.GetManifestResourceNames()
            .Where(name => name.StartsWith(ResourcePrefix, StringComparison.Ordinal))
            .Order(StringComparer.Ordinal)
            .Select(name => KeyValuePair.Create(name[ResourcePrefix.Length..], Read(assembly, name)))
            .ToArray();
        return scripts.Length > 0
            ? scripts
            : throw new InvalidOperationException($"No embedded resources named {ResourcePrefix}*: the SQL scripts were not embedded.");
    }

    private static string Read(Assembly assembly, string name)
    {
        using var stream = assembly.GetManifestResourceStream(name)!;
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }
}
