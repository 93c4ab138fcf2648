using Npgsql;

namespace Cubby.AppHost.Resources.Postgres;

/// <summary>The PostgreSQL the silos keep their membership table in.</summary>
internal abstract class PostgresResource(string name, DevContext context) : Resource(name), IConnectionSource
{
    /// <summary>The bin folders PostgreSQL is installed in the Debian way.</summary>
    public const string BinariesRoot = "/usr/lib/postgresql";

    protected DevContext Context { get; } = context;

    public string ConnectionName => "postgres";

    public abstract string ConnectionString { get; }

    public override StopStage StopStage => StopStage.Infrastructure;

    /// <summary>Healthy once a connection opens and answers a query.</summary>
    public override Task WaitHealthyAsync(CancellationToken cancellationToken)
    {
        var target = new NpgsqlConnectionStringBuilder(ConnectionString) { Pooling = false, Timeout = 5 };
        return HealthProbe.WaitAsync(Name, $"{target.Host}:{target.Port}", Context.Options.StartTimeout, async attempt =>
        {
            await using var connection = new NpgsqlConnection(target.ConnectionString);
            await connection.OpenAsync(attempt).ConfigureAwait(false);
            await using var command = new NpgsqlCommand("SELECT 1", connection);
            await command.ExecuteScalarAsync(attempt).ConfigureAwait(false);
            return null;
        }, cancellationToken);
    }

    /// <summary>The newest PostgreSQL bin folder with the server and initdb, or null.</summary>
    public static string? FindBinaries() =>
        !Directory.Exists(BinariesRoot)
            ? null
            : Directory.EnumerateDirectories(BinariesRoot)
                .Select(version => Path.Combine(version, "bin"))
                .Where(bin => File.Exists(Path.Combine(bin, "initdb")) && File.Exists(Path.Combine(bin, "postgres")))
                .OrderByDescending(bin => int.TryParse(Path.GetFileName(Path.GetDirectoryName(bin)), out var major) ? major : 0)
                .FirstOrDefault();
}
