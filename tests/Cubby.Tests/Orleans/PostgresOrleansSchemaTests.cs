using System.Diagnostics;
using System.Net;
using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Grains.Storage;
using Cubby.Sharding;
using Cubby.Silo.Clustering.Postgres;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Npgsql;
using Orleans.Configuration;
using Orleans.Hosting;

namespace Cubby.Tests.Orleans;

/// <summary>Cubby's own PostgreSQL scripts for Orleans' ADO.NET providers, against a real PostgreSQL and a real silo.</summary>
[Collection(PostgresCollection.Name)]
public sealed class PostgresOrleansSchemaTests(PostgresServer server) : OwnSchemaTests(server, "cubby_orleans")
{
    [Fact]
    public async Task Migrate_applies_the_scripts_and_says_so_each_time_it_runs()
    {
        for (var run = 1; run <= 2; run++)
        {
            using var migrate = Process.Start(DotnetProcess.StartInfo(SiloProcess.SiloAssemblyPath, ["migrate", "--Cubby:Clustering:ConnectionString", ConnectionString]))!;
            var output = migrate.StandardOutput.ReadToEndAsync();
            var errors = migrate.StandardError.ReadToEndAsync();
            using var deadline = new CancellationTokenSource(TimeSpan.FromSeconds(60));
            await migrate.WaitForExitAsync(deadline.Token);

            Assert.True(migrate.ExitCode == 0, $"migrate run {run} exited with {migrate.ExitCode}: {await errors}");
            Assert.Contains("The Orleans clustering and reminders schema is up to date.", await output, StringComparison.Ordinal);
            Assert.Equal(17L, await CountAsync($"SELECT count(*) FROM {Schema}.orleansquery"));
        }
    }

    [Fact]
    public async Task The_scripts_apply_twice_and_concurrently_and_Orleans_clustering_and_reminders_run_on_them()
    {
        await PostgresSchema.ApplyAsync(ConnectionString, CancellationToken.None);
        await PostgresSchema.ApplyAsync(ConnectionString, CancellationToken.None);
        await Task.WhenAll(Enumerable.Range(0, 3).Select(_ => PostgresSchema.ApplyAsync(ConnectionString, CancellationToken.None)));
        Assert.Equal(17L, await CountAsync($"SELECT count(*) FROM {Schema}.orleansquery"));

        var builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.UseOrleans(silo =>
        {
            silo.Configure<ClusterOptions>(options => (options.ClusterId, options.ServiceId) = ("pg-test", "cubby"));
            silo.ConfigureEndpoints(IPAddress.Loopback, SiloProcess.FreePort(), SiloProcess.FreePort());
            silo.UseAdoNetClustering(options => (options.Invariant, options.ConnectionString) = ("Npgsql", ConnectionString));
            silo.UseAdoNetReminderService(options => (options.Invariant, options.ConnectionString) = ("Npgsql", ConnectionString));
            silo.Services.Configure<ReminderOptions>(options => options.MinimumReminderPeriod = TimeSpan.FromSeconds(1));
            silo.AddCubbyShards(new ShardOptions { KeptForReuseBytes = 0, MaxMemoryBytes = 16L * 1024 * 1024, FullSweepInterval = TimeSpan.FromSeconds(1) }, EntryStores.Managed(0, SlabPages.PageBytes));
        });
        using var host = builder.Build();
        await host.StartAsync();
        try
        {
            var grains = host.Services.GetRequiredService<IGrainFactory>();
            Assert.Equal(WriteOutcome.Created, await grains.GetGrain<IShardGrain>(new ShardMap().SlotOf("k"u8)).Set("k"u8.ToArray(), "v"u8.ToArray(), ShardExpiry.Never, CacheEntryFlags.None, ShardWriteCondition.Always));

            // Active = 3 in Orleans' SiloStatus; the shard's activation registered its sweep reminder in the table.
            Assert.Equal(1L, await CountAsync($"SELECT count(*) FROM {Schema}.orleansmembershiptable WHERE status = 3"));
            await Poll.UntilAsync(async () => await CountAsync($"SELECT count(*) FROM {Schema}.orleansreminderstable WHERE remindername = 'sweep'") == 1,
                TimeSpan.FromSeconds(30), "the shard's sweep reminder row");
        }
        finally
        {
            await host.StopAsync();
        }

        // A graceful stop marks the silo Dead (6) in the table.
        Assert.Equal(6L, await CountAsync($"SELECT max(status) FROM {Schema}.orleansmembershiptable"));
    }

    private async Task<long> CountAsync(string sql)
    {
        await using var connection = new NpgsqlConnection(ConnectionString);
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand(sql, connection);
        return Convert.ToInt64(await command.ExecuteScalarAsync(), System.Globalization.CultureInfo.InvariantCulture);
    }
}
