using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Cubby.Tests.Silo;

namespace Cubby.Tests.AppHost;

/// <summary>
/// <c>dotnet run --project aspire/Cubby.AppHost</c> as a developer uses it: everything it starts becomes healthy, the
/// sample app caches in the silos, and a signal (or a resource dying) stops every process it started.
/// </summary>
public sealed class AppHostTests : IDisposable
{
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(240);
    private static readonly TimeSpan StopTimeout = TimeSpan.FromSeconds(150);

    // As root the throwaway server runs as the postgres user, who must reach the folder: not so under a TMPDIR in /root.
    private readonly string _temp = Directory.CreateDirectory(Path.Combine(Environment.UserName == "root" ? "/tmp" : Path.GetTempPath(), $"cubby-apphost-test-{Guid.NewGuid():N}")).FullName;
    private readonly HttpClient _http = new(new HttpClientHandler { UseCookies = true }) { Timeout = TimeSpan.FromSeconds(30) };

    [Fact]
    public async Task Starts_postgres_three_silos_and_the_web_app_healthy_and_SIGINT_stops_every_process_and_deletes_the_database_folder()
    {
        using var host = AppHostProcess.Start("--temp", _temp, "--silos", "3");
        await host.WaitForLineAsync("All 5 resources are healthy", StartTimeout);
        var resources = host.Resources();
        Assert.Equal(["postgres", "silo-1", "silo-2", "silo-3", "web"], resources.Keys.Order());
        var processIds = resources.Values.Select(fields => int.Parse(fields["pid"])).ToArray();
        Assert.All(processIds, pid => Assert.True(AppHostProcess.IsRunning(pid), $"pid {pid} is not running.{host.Describe()}"));
        var folder = resources["postgres"]["folder"];
        Assert.Equal(_temp, Path.GetDirectoryName(folder));
        Assert.True(Directory.Exists(Path.Combine(folder, "data")), $"No database folder at {folder}.");

        foreach (var silo in new[] { "silo-1", "silo-2", "silo-3" })
        {
            var http = resources[silo]["http"];
            Assert.Equal(HttpStatusCode.OK, (await _http.GetAsync(new Uri($"{http}/health"))).StatusCode);
            Assert.Equal(HttpStatusCode.OK, (await _http.GetAsync(new Uri($"{http}/alive"))).StatusCode);
            foreach (var page in new[] { "dashboard", "cache" })
            {
                Assert.Equal(HttpStatusCode.OK, (await _http.GetAsync(new Uri(resources[silo][page]))).StatusCode);
            }
        }

        // The sample app computes once, caches in Cubby under a key anyone can read with redis-cli.
        var web = new Uri(resources["web"]["url"]);
        var first = await _http.GetFromJsonAsync<JsonElement>(new Uri(web, "/primes/1000"));
        Assert.True(first.GetProperty("computedNow").GetBoolean());
        Assert.Equal(168, first.GetProperty("count").GetProperty("count").GetInt32());
        var second = await _http.GetFromJsonAsync<JsonElement>(new Uri(web, "/primes/1000"));
        Assert.False(second.GetProperty("computedNow").GetBoolean());
        foreach (var silo in new[] { "silo-1", "silo-2", "silo-3" })
        {
            var port = int.Parse(resources[silo]["resp"].Split(':')[1]);
            var cached = await RedisTools.CliOutputAsync(port, "GET", "primes:1000");
            Assert.Contains("\"count\":168", cached, StringComparison.Ordinal);
            Assert.Contains("\"largest\":997", cached, StringComparison.Ordinal);
        }

        // HybridCache over Cubby: computed once, then from this instance's memory; the value reaches Cubby behind the reply.
        var fibonacci = await _http.GetFromJsonAsync<JsonElement>(new Uri(web, "/fibonacci/80"));
        Assert.True(fibonacci.GetProperty("computedNow").GetBoolean());
        Assert.Equal(23_416_728_348_467_685L, fibonacci.GetProperty("value").GetInt64());
        Assert.False((await _http.GetFromJsonAsync<JsonElement>(new Uri(web, "/fibonacci/80"))).GetProperty("computedNow").GetBoolean());
        var silo1 = int.Parse(resources["silo-1"]["resp"].Split(':')[1]);
        await Cubby.Tests.Client.Poll.UntilAsync(async () => (await RedisTools.CliOutputAsync(silo1, "EXISTS", "fibonacci:80")).Trim() == "1", TimeSpan.FromSeconds(30), "HybridCache to write fibonacci:80 to Cubby");

        // Sessions live in Cubby too; the owner page names one of the silos.
        var visits = await _http.GetFromJsonAsync<JsonElement>(new Uri(web, "/visits"));
        var again = await _http.GetFromJsonAsync<JsonElement>(new Uri(web, "/visits"));
        Assert.Equal(1, visits.GetProperty("visits").GetInt32());
        Assert.Equal(2, again.GetProperty("visits").GetInt32());
        var owner = await _http.GetFromJsonAsync<JsonElement>(new Uri(web, "/owner/primes:1000"));
        Assert.Contains(owner.GetProperty("silo").GetString(), new[] { "silo-1", "silo-2", "silo-3" }.Select(silo => resources[silo]["silo"]));

        host.Signal(AppHostProcess.SigInt);
        Assert.Equal(0, await host.WaitForExitAsync(StopTimeout));
        await host.WaitUntilGoneAsync(processIds, TimeSpan.FromSeconds(30));
        Assert.False(Directory.Exists(folder), $"{folder} is still there.{host.Describe()}");

        // Silos first, the last started first (each moves its shards to those left), then the app, then the database.
        var output = host.Output;
        var order = new[] { "Stopping silo-3", "Stopping silo-2", "Stopping silo-1", "Stopping web", "Stopping postgres" }
            .Select(line => output.IndexOf(line, StringComparison.Ordinal)).ToArray();
        Assert.True(order.All(index => index >= 0) && order.SequenceEqual(order.Order()), $"Stopped out of order.{host.Describe()}");
        Assert.DoesNotContain("!!!", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_postgres_the_silos_use_development_clustering_and_a_silo_that_dies_stops_everything_with_exit_code_1()
    {
        using var host = AppHostProcess.Start("--no-postgres", "--silos", "2");
        await host.WaitForLineAsync("All 3 resources are healthy", StartTimeout);
        var resources = host.Resources();
        Assert.Equal(["silo-1", "silo-2", "web"], resources.Keys.Order());
        var port = int.Parse(resources["silo-2"]["resp"].Split(':')[1]);
        var info = await RedisTools.CliOutputAsync(port, "INFO", "cluster");
        Assert.Contains("cubby_clustering_mode:Development", info, StringComparison.Ordinal);
        Assert.Contains("cubby_active_silos:2", info, StringComparison.Ordinal);
        var processIds = resources.Values.Select(fields => int.Parse(fields["pid"])).ToArray();

        using (var silo = System.Diagnostics.Process.GetProcessById(int.Parse(resources["silo-2"]["pid"])))
        {
            silo.Kill();
        }

        Assert.Equal(1, await host.WaitForExitAsync(StopTimeout));
        Assert.Contains("silo-2 exited unexpectedly", host.Output, StringComparison.Ordinal);
        await host.WaitUntilGoneAsync(processIds, TimeSpan.FromSeconds(30));
    }

    [Fact]
    public async Task A_bad_option_is_refused_naming_it()
    {
        using var host = AppHostProcess.Start("--silos", "0");
        Assert.NotEqual(0, await host.WaitForExitAsync(TimeSpan.FromSeconds(60)));
        Assert.Contains("--silos must be from 1 to 9", host.Output, StringComparison.Ordinal);
    }

    public void Dispose()
    {
        _http.Dispose();
        Directory.Delete(_temp, recursive: true);
    }
}
