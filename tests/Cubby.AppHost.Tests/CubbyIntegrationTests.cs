using System.Net.Http.Json;
using System.Text.Json;
using Aspire.Hosting;
using Aspire.Hosting.ApplicationModel;
using Aspire.Hosting.Testing;
using StackExchange.Redis;

namespace Cubby.AppHost.Tests;

/// <summary>
/// Cubby's Aspire integrations as another team uses them, in an AppHost of its own: <c>AddCubby</c> in the AppHost,
/// <c>AddCubbyClient</c> in a project that references the cluster.
/// </summary>
public sealed class CubbyIntegrationTests
{
    [Fact]
    public async Task AddCubby_with_development_clustering_serves_a_project_that_calls_AddCubbyClient()
    {
        var builder = DistributedApplicationTestingBuilder.Create();
        // The sample web app calls builder.AddCubbyClient("cache"): the name it reads is the resource's.
        var cache = builder.AddCubby("cache", silos: 2).WithClusterId("shop");
        builder.AddProject<Projects.Cubby_SampleWeb>("shop").WithReference(cache).WaitFor(cache).WithHttpEndpoint().WithHttpHealthCheck("/health");
        string[] resources = ["cache-silo-1", "cache-silo-2", "shop"];

        await using var app = await builder.BuildAsync();
        await app.StartWithinAsync();
        await app.WaitHealthyAsync([.. resources, "cache"]);

        // The connection string carries both silos' gateways and the cluster id the AppHost chose.
        var connectionString = await cache.Resource.ConnectionStringExpression.GetValueAsync(CancellationToken.None);
        Assert.Matches(@"^Endpoints=127\.0\.0\.1:\d+,127\.0\.0\.1:\d+;ClusterId=shop;ServiceId=cache$", connectionString);

        using var redis = await ConnectionMultiplexer.ConnectAsync($"127.0.0.1:{app.PortOf("cache-silo-2", "resp")},allowAdmin=true");
        var cluster = (string)(await redis.GetDatabase().ExecuteAsync("INFO", "cluster"))!;
        Assert.Contains("cubby_clustering_mode:Development", cluster, StringComparison.Ordinal);
        Assert.Contains("cubby_active_silos:2", cluster, StringComparison.Ordinal);

        using var http = app.CreateHttpClient("shop");
        var first = await http.GetFromJsonAsync<JsonElement>(new Uri("/primes/5000", UriKind.Relative));
        Assert.True(first.GetProperty("computedNow").GetBoolean());
        Assert.Contains("\"count\":669", (string?)await redis.GetDatabase().StringGetAsync("primes:5000"), StringComparison.Ordinal);

        // The client integration's health check reaches the cluster: the project's /health says so by name.
        var health = await http.GetStringAsync(new Uri("/health", UriKind.Relative));
        Assert.Equal("Healthy", health);
    }

    [Fact]
    public async Task WithDataDirectory_gives_each_silo_a_folder_and_an_app_started_again_on_it_reads_what_the_first_wrote()
    {
        var data = Directory.CreateTempSubdirectory("cubby-aspire-data-");
        try
        {
            await RunAsync(static redis => redis.StringSetAsync("kept", "across restarts", TimeSpan.FromHours(1)));
            Assert.NotEmpty(Directory.GetFiles(Path.Combine(data.FullName, "cache-silo-1"), "shard-*.snapshot"));

            await RunAsync(static async redis =>
            {
                Assert.Equal("across restarts", (string?)await redis.StringGetAsync("kept"));
                Assert.InRange((await redis.KeyTimeToLiveAsync("kept"))!.Value, TimeSpan.FromMinutes(50), TimeSpan.FromHours(1));
            });
        }
        finally
        {
            data.Delete(recursive: true);
        }

        async Task RunAsync(Func<IDatabase, Task> use)
        {
            var builder = DistributedApplicationTestingBuilder.Create();
            builder.AddCubby("cache", silos: 1).WithDataDirectory(data.FullName);
            await using var app = await builder.BuildAsync();
            await app.StartWithinAsync();
            await app.WaitHealthyAsync(["cache-silo-1", "cache"]);
            using (var redis = await ConnectionMultiplexer.ConnectAsync($"127.0.0.1:{app.PortOf("cache-silo-1", "resp")}"))
            {
                await use(redis.GetDatabase());
            }

            using var stopDeadline = new CancellationTokenSource(TimeSpan.FromSeconds(60));
            await app.StopAsync(stopDeadline.Token);
        }
    }

    [Fact]
    public async Task A_silo_that_fails_to_start_is_shown_failed_with_its_log_and_the_cluster_fails_instead_of_hanging()
    {
        var builder = DistributedApplicationTestingBuilder.Create();
        var cache = builder.AddCubby("cache", silos: 1);
        builder.CreateResourceBuilder(cache.Resource.Silos[0]).WithEnvironment("Cubby__MaxKeyBytes", "0");
        builder.AddProject<Projects.Cubby_SampleWeb>("web").WithReference(cache).WaitFor(cache).WithHttpEndpoint();

        await using var app = await builder.BuildAsync();
        var logs = new ResourceLogs(app);

        // The start goes on while the web app waits for a cluster that will not come (Aspire waits for a dependency to be
        // restarted from the dashboard): the test watches it from outside.
        using var deadline = new CancellationTokenSource(RunningApp.StartTimeout);
        var starting = app.StartAsync(deadline.Token);
        var silo = await app.ResourceNotifications.WaitForResourceAsync("cache-silo-1", [KnownResourceStates.Exited, KnownResourceStates.FailedToStart, KnownResourceStates.Finished], deadline.Token);
        Assert.NotEqual(KnownResourceStates.Running, silo);
        await app.ResourceNotifications.WaitForResourceAsync("cache", KnownResourceStates.FailedToStart, deadline.Token);
        await Poll.UntilAsync(async () => (await logs.OfAsync("cache-silo-1")).Contains("Cubby:MaxKeyBytes must be between 1 and", StringComparison.Ordinal),
            TimeSpan.FromSeconds(30), "the silo's log to name the bad setting");
        Assert.True(app.ResourceNotifications.TryGetCurrentState("web", out var web));
        Assert.NotEqual(KnownResourceStates.Running, web!.Snapshot.State?.Text);

        // Stopping does not wait for the start that cannot finish.
        using var stopDeadline = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        await app.StopAsync(stopDeadline.Token);
        await Task.WhenAny(starting, Task.Delay(TimeSpan.FromSeconds(30), CancellationToken.None));
    }
}
