using Npgsql;

namespace Cubby.AppHost.Resources.Postgres;

/// <summary>A PostgreSQL someone else runs (<c>ConnectionStrings__postgres</c> or <c>--postgres</c>): checked, used, left alone.</summary>
internal sealed class ExternalPostgres : PostgresResource
{
    private readonly NpgsqlConnectionStringBuilder _target;

    public ExternalPostgres(string name, string connectionString, DevContext context)
        : base(name, context)
    {
        try
        {
            _target = new NpgsqlConnectionStringBuilder(connectionString);
        }
        catch (ArgumentException exception)
        {
            throw new ArgumentException($"The PostgreSQL connection string (--postgres or ConnectionStrings__postgres) is not valid: {exception.Message}", exception);
        }

        ConnectionString = connectionString;
    }

    public override string ConnectionString { get; }

    public override Task<int> Exited { get; } = new TaskCompletionSource<int>().Task;

    public override IReadOnlyList<int> ProcessIds => [];

    public override Task LaunchAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public override Task StopAsync(CancellationToken force) => Task.CompletedTask;

    public override string Describe() => $"external={_target.Host}:{_target.Port}/{_target.Database}";
}
