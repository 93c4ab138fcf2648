using Cubby.Silo.Cluster.Membership;
using Cubby.Tests.Infrastructure;
using Npgsql;

namespace Cubby.Tests.Cluster;

/// <summary>The PostgreSQL table beyond the contract: its schema, its storage and several silos on one database.</summary>
[Collection(PostgresCollection.Name)]
public sealed class PostgresMembershipSchemaTests(PostgresServer server) : IAsyncLifetime
{
    private static readonly DateTimeOffset T0 = new(2026, 11, 22, 10, 0, 0, TimeSpan.Zero);

    // Each test gets an empty schema of its own, so "the tables do not exist yet" can be tested on a shared server.
    private readonly string _schema = $"cubby_test_{Guid.NewGuid():N}";
    private readonly List<PostgresMembershipTable> _tables = [];

    private string ConnectionString => server.ConnectionStringFor(_schema);

    public Task InitializeAsync() => server.ExecuteAsync($"CREATE SCHEMA {_schema}");

    public async Task DisposeAsync()
    {
        foreach (var table in _tables)
        {
            await table.DisposeAsync();
        }

        await server.ExecuteAsync($"DROP SCHEMA {_schema} CASCADE");
    }

    private PostgresMembershipTable Table(string clusterId)
    {
        var table = new PostgresMembershipTable(clusterId, ConnectionString);
        _tables.Add(table);
        return table;
    }

    private static MembershipEntry Entry(string siloId, params Suspicion[] suspicions) =>
        new(siloId, "10.0.0.1", 6390, 1, SiloStatus.Joining, 1024, T0, T0, suspicions);

    private async Task<T> ScalarAsync<T>(string sql, params (string Name, object Value)[] parameters)
    {
        await using var dataSource = NpgsqlDataSource.Create(ConnectionString);
        await using var command = dataSource.CreateCommand(sql);
        foreach (var (name, value) in parameters)
        {
            command.Parameters.AddWithValue(name, value);
        }

        await using var reader = await command.ExecuteReaderAsync();
        Assert.True(await reader.ReadAsync());
        return reader.GetFieldValue<T>(0);
    }

    [Fact]
    public async Task Without_the_schema_reads_throw_not_initialized_writes_fail_and_delete_does_nothing()
    {
        var table = Table("c");

        await Assert.ThrowsAsync<InvalidOperationException>(() => table.ReadAllAsync(CancellationToken.None));
        Assert.False(await table.TryInsertAsync(Entry("a"), 0, CancellationToken.None));
        Assert.False(await table.TryUpdateAsync(Entry("a"), "1", 0, CancellationToken.None));
        await Assert.ThrowsAsync<InvalidOperationException>(() => table.UpdateIAmAliveAsync("a", T0, CancellationToken.None));
        await table.DeleteClusterAsync(CancellationToken.None);

        Assert.Equal(0L, await ScalarAsync<long>("SELECT count(*) FROM pg_tables WHERE schemaname = @schema", ("schema", _schema)));
    }

    [Fact]
    public async Task ApplyAsync_creates_both_tables_with_their_columns_and_can_run_again()
    {
        await PostgresMembershipSchema.ApplyAsync(ConnectionString, CancellationToken.None);
        await PostgresMembershipSchema.ApplyAsync(ConnectionString, CancellationToken.None);

        const string Columns = """
            SELECT string_agg(table_name || '.' || column_name || ':' || data_type, ',' ORDER BY table_name, ordinal_position)
            FROM information_schema.columns WHERE table_schema = @schema
            """;
        Assert.Equal(
            "cubby_membership.cluster_id:text,cubby_membership.silo_id:text,cubby_membership.host:text,cubby_membership.port:integer," +
            "cubby_membership.generation:bigint,cubby_membership.status:smallint,cubby_membership.slot_count:integer," +
            "cubby_membership.started_at:timestamp with time zone,cubby_membership.i_am_alive_at:timestamp with time zone," +
            "cubby_membership.suspicions:jsonb,cubby_membership.etag:bigint," +
            "cubby_membership_version.cluster_id:text,cubby_membership_version.version:bigint",
            await ScalarAsync<string>(Columns, ("schema", _schema)));
    }

    [Fact]
    public async Task A_silo_without_the_right_to_create_tables_initializes_a_migrated_database()
    {
        // The operator migrates with a privileged role; silos may run with one that can only use the tables.
        await PostgresMembershipSchema.ApplyAsync(ConnectionString, CancellationToken.None);
        await server.ExecuteAsync($"REVOKE CREATE ON SCHEMA {_schema} FROM CURRENT_USER");
        var table = Table("least-privilege");

        await table.InitializeAsync(CancellationToken.None);

        Assert.True(await table.TryInsertAsync(Entry("a"), 0, CancellationToken.None));
        Assert.Equal(1, (await table.ReadAllAsync(CancellationToken.None)).Version);
    }

    [Fact]
    public async Task Silos_starting_at_once_all_initialize_the_same_fresh_database()
    {
        const int Silos = 4;
        var tables = Enumerable.Range(0, Silos).Select(_ => Table("together")).ToArray();

        await Task.WhenAll(tables.Select(table => Task.Run(() => table.InitializeAsync(CancellationToken.None))));

        Assert.Equal(1L, await ScalarAsync<long>("SELECT count(*) FROM cubby_membership_version"));
        Assert.Equal(0, (await tables[0].ReadAllAsync(CancellationToken.None)).Version);
    }

    [Fact]
    public async Task Two_silos_of_one_cluster_share_the_table_and_a_stale_write_fails()
    {
        var first = Table("shared");
        var second = Table("shared");
        await first.InitializeAsync(CancellationToken.None);
        await second.InitializeAsync(CancellationToken.None);
        Assert.True(await first.TryInsertAsync(Entry("a"), 0, CancellationToken.None));

        var seenBySecond = await second.ReadAllAsync(CancellationToken.None);
        var row = Assert.Single(seenBySecond.Entries);
        Assert.Equal(Entry("a"), row.Entry);
        Assert.True(await second.TryInsertAsync(Entry("b"), seenBySecond.Version, CancellationToken.None));

        // The first silo's view is one change behind now.
        Assert.False(await first.TryUpdateAsync(Entry("a") with { Status = SiloStatus.Active }, row.ETag, 1, CancellationToken.None));
        Assert.True(await first.TryUpdateAsync(Entry("a") with { Status = SiloStatus.Active }, row.ETag, 2, CancellationToken.None));
        Assert.Equal(3, (await second.ReadAllAsync(CancellationToken.None)).Version);
    }

    [Fact]
    public async Task Suspicions_are_a_jsonb_array_of_by_and_at()
    {
        var table = Table("json");
        await table.InitializeAsync(CancellationToken.None);

        Assert.True(await table.TryInsertAsync(Entry("a", new Suspicion("b", T0), new Suspicion("c", T0.AddSeconds(1))), 0, CancellationToken.None));

        Assert.Equal("[\"b\", \"c\"]", await ScalarAsync<string>(
            "SELECT jsonb_path_query_array(suspicions, '$[*].by')::text FROM cubby_membership WHERE silo_id = 'a'"));
        Assert.Equal(T0.AddSeconds(1), await ScalarAsync<DateTimeOffset>(
            "SELECT (suspicions -> 1 ->> 'at')::timestamptz FROM cubby_membership WHERE silo_id = 'a'"));
    }
}
