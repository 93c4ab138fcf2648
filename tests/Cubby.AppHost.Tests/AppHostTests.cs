using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Aspire.Hosting;
using Aspire.Hosting.Testing;
using StackExchange.Redis;

namespace Cubby.AppHost.Tests;

/// <summary>
/// Cubby's AppHost (<c>aspire/Cubby.AppHost</c>) as a developer runs it, through Aspire.Hosting.Testing: a throwaway
/// PostgreSQL, three silos clustered on it, the sample web app; all healthy, caching in the silos, and all gone once it stops.
/// </summary>
public sealed class AppHostTests
{
    private static readonly string[] Silos = ["cache-silo-1", "cache-silo-2", "cache-silo-3"];
    private static readonly string[] Resources = ["postgres", .. Silos, "web"];

    [Fact]
    public async Task Every_resource_becomes_healthy_the_web_app_caches_in_the_silos_and_stopping_leaves_no_process()
    {
        var builder = await DistributedApplicationTestingBuilder.CreateAsync<Projects.Cubby_AppHost>();
        IReadOnlyList<int> processes;
        string databaseFolder;
        await using (var app = await builder.BuildAsync())
        {
            await app.StartWithinAsync();
            await app.WaitHealthyAsync([.. Resources, "cache"]);
            processes = app.ProcessesOf(Resources);
            databaseFolder = DatabaseFolderOf(processes);
            Assert.True(Directory.Exists(databaseFolder), $"No database folder at {databaseFolder}.");

            using var http = app.CreateHttpClient("web");
            foreach (var silo in Silos)
            {
                using var siloHttp = app.CreateHttpClient(silo, "http");
                Assert.Equal(HttpStatusCode.OK, (await siloHttp.GetAsync(new Uri("/health", UriKind.Relative))).StatusCode);
                Assert.Equal(HttpStatusCode.OK, (await siloHttp.GetAsync(new Uri("/dashboard/", UriKind.Relative))).StatusCode);
            }

            // The three silos are one Orleans cluster on PostgreSQL, under the ids the AppHost gave.
            using var redis = await ConnectionMultiplexer.ConnectAsync($"127.0.0.1:{app.PortOf(Silos[1], "resp")},allowAdmin=true");
            var cluster = (string)(await redis.GetDatabase().ExecuteAsync("INFO", "cluster"))!;
            Assert.Contains("cubby_clustering_mode:Postgres", cluster, StringComparison.Ordinal);
            Assert.Contains("cubby_active_silos:3", cluster, StringComparison.Ordinal);

            // The web app computes once and caches in Cubby, where every silo's RESP door reads it.
            var first = await http.GetFromJsonAsync<JsonElement>(new Uri("/primes/1000", UriKind.Relative));
            Assert.True(first.GetProperty("computedNow").GetBoolean());
            var second = await http.GetFromJsonAsync<JsonElement>(new Uri("/primes/1000", UriKind.Relative));
            Assert.False(second.GetProperty("computedNow").GetBoolean());
            foreach (var silo in Silos)
            {
                using var door = await ConnectionMultiplexer.ConnectAsync($"127.0.0.1:{app.PortOf(silo, "resp")},allowAdmin=true");
                var cached = (string?)await door.GetDatabase().StringGetAsync("primes:1000");
                Assert.NotNull(cached);
                Assert.Contains("\"count\":168", cached, StringComparison.Ordinal);
            }

            // Cubby's HybridCache: computed once and stored in Cubby before the reply, then served without computing again.
            var fibonacci = await http.GetFromJsonAsync<JsonElement>(new Uri("/fibonacci/80", UriKind.Relative));
            Assert.True(fibonacci.GetProperty("computedNow").GetBoolean());
            Assert.Equal(23_416_728_348_467_685L, fibonacci.GetProperty("value").GetInt64());
            Assert.True(await redis.GetDatabase().KeyExistsAsync("fibonacci:80"));
            Assert.False((await http.GetFromJsonAsync<JsonElement>(new Uri("/fibonacci/80", UriKind.Relative))).GetProperty("computedNow").GetBoolean());

            await app.StopAsync();
        }

        await Poll.UntilAsync(() => !processes.Any(ProcessTree.IsAlive), TimeSpan.FromSeconds(60),
            $"every process the AppHost started to exit; left: {string.Join("; ", processes.Where(ProcessTree.IsAlive).Select(ProcessTree.CommandLineOf))}");
        await Poll.UntilAsync(() => !Directory.Exists(databaseFolder), TimeSpan.FromSeconds(30), $"{databaseFolder} to be deleted");
    }

    /// <summary>The throwaway server's folder, from its command line (<c>postgres -D {folder}/data ...</c>).</summary>
    internal static string DatabaseFolderOf(IEnumerable<int> processes)
    {
        var postgres = processes.Select(ProcessTree.CommandLineOf).First(static line => line.Contains("/bin/postgres -D ", StringComparison.Ordinal));
        var data = postgres.Split(' ').SkipWhile(static word => word != "-D").Skip(1).First();
        return Path.GetDirectoryName(data)!;
    }
}
