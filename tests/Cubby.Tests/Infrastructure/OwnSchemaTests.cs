namespace Cubby.Tests.Infrastructure;

/// <summary>
/// Tests that each run in a PostgreSQL schema of their own on the shared <see cref="PostgresServer"/>: created before
/// each test, dropped with everything in it after.
/// </summary>
public abstract class OwnSchemaTests(PostgresServer server, string prefix) : IAsyncLifetime
{
    /// <summary>This test's schema.</summary>
    protected string Schema { get; } = $"{prefix}_{Guid.NewGuid():N}";

    /// <summary>A connection string whose search path is <see cref="Schema"/>.</summary>
    protected string ConnectionString => server.ConnectionStringFor(Schema);

    public Task InitializeAsync() => server.ExecuteAsync($"CREATE SCHEMA {Schema}");

    public Task DisposeAsync() => server.ExecuteAsync($"DROP SCHEMA {Schema} CASCADE");
}
