using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Dashboard;

/// <summary>
/// The cache page's API on one silo shows every silo of the in-process cluster, each asked through its Orleans grain
/// service, and those that left as dead; the Orleans dashboard beside it lists the silos and the shard grain type.
/// </summary>
public sealed class CacheApiTests
{
    [Fact]
    public async Task One_silo_reports_every_silo_with_its_figures_and_one_that_leaves_as_dead()
    {
        await using var cluster = await DashboardSilo.StartClusterAsync(3, options => options.SlotCount = 64);
        var ids = cluster.Silos.Select(silo => silo.Runtime.Self.ToParsableString()).ToArray();
        using var http = DashboardHttp.For(cluster.Primary.Endpoints.Http);
        await using (var client = await cluster.Silos[1].ConnectAsync())
        {
            for (var i = 0; i < 200; i++)
            {
                RespAssert.Ok(await client.CallAsync("SET", $"dash:{i}", "value"));
            }

            // DBSIZE visits every shard, so all 64 are active somewhere.
            Assert.Equal(200, (await client.CallAsync("DBSIZE")).Integer);
        }

        // Every member answers with its figures; keys across the cluster add up to what was written.
        await Poll.UntilAsync(async () =>
        {
            var silos = CacheApi.Silos(await CacheApi.ReadAsync(http));
            return silos.Length == 3
                && silos.All(silo => silo.GetProperty("reachable").GetBoolean() && CacheApi.HasStats(silo))
                && silos.Sum(CacheApi.Keys) == 200
                && silos.Sum(silo => silo.GetProperty("shards").GetInt32()) == 64
                && silos.All(silo => silo.GetProperty("stats").GetProperty("series").GetProperty("ops").GetArrayLength() > 0);
        }, TimeSpan.FromSeconds(60), "all three silos reported with figures and 200 keys");

        var report = await CacheApi.ReadAsync(http);
        Assert.Equal(ids.Order(), CacheApi.Silos(report).Select(silo => silo.GetProperty("id").GetString()).Order());
        Assert.Equal(ids[0], report.GetProperty("selfId").GetString());
        Assert.All(CacheApi.Silos(report), silo => Assert.True(silo.GetProperty("stats").GetProperty("memoryLimitBytes").GetInt64() > 0));

        // A silo that leaves is listed as dead, after the live ones; its keys moved with its shards to the others.
        await cluster.StopAsync(cluster.Silos[2]);
        await Poll.UntilAsync(async () =>
        {
            var silos = CacheApi.Silos(await CacheApi.ReadAsync(http));
            var live = silos.Where(silo => silo.GetProperty("status").GetString() == "Active").ToList();
            return silos.Length == 3
                && silos[2].GetProperty("id").GetString() == ids[2] && silos[2].GetProperty("status").GetString() == "Dead"
                && !silos[2].GetProperty("reachable").GetBoolean() && silos[2].GetProperty("declaredDeadAt").ValueKind == System.Text.Json.JsonValueKind.String
                && live.Count == 2 && live.Sum(CacheApi.Keys) == 200;
        }, what: "the stopped silo listed dead with its keys on the others");

        // Each silo has one row, whichever state the membership snapshot gives it.
        for (var i = 0; i < 20; i++)
        {
            var listed = CacheApi.Silos(await CacheApi.ReadAsync(http)).Select(silo => silo.GetProperty("id").GetString()).ToList();
            Assert.Equal(listed.Count, listed.Distinct().Count());
        }
    }

    [Fact]
    public async Task The_Orleans_dashboard_lists_the_silos_and_the_shard_grain_type()
    {
        await using var cluster = await DashboardSilo.StartClusterAsync(2, options => options.SlotCount = 16);
        using var http = DashboardHttp.For(cluster.Primary.Endpoints.Http);
        await using (var client = await cluster.Primary.ConnectAsync())
        {
            RespAssert.Ok(await client.CallAsync("SET", "orleans:dashboard", "value"));
        }

        await Poll.UntilAsync(async () =>
        {
            var counters = await CacheApi.ReadJsonAsync(http, "/dashboard/DashboardCounters");
            var hosts = counters.GetProperty("hosts").EnumerateArray().ToList();
            var grainTypes = counters.GetProperty("simpleGrainStats").EnumerateArray().Select(stat => stat.GetProperty("grainType").GetString()).ToList();
            return hosts.Count == 2 && hosts.All(host => host.GetProperty("status").GetString() == "Active")
                && grainTypes.Any(type => type?.Contains("ShardGrain", StringComparison.Ordinal) == true);
        }, TimeSpan.FromSeconds(60), "two active silos and the shard grain type in the Orleans dashboard's counters");
    }

    [Fact]
    public async Task Busiest_slots_rank_the_slot_under_load_first()
    {
        await using var silo = await DashboardSilo.StartAsync();
        using var http = DashboardHttp.For(silo.Endpoints.Http);
        await using var client = await silo.ConnectAsync();
        var slot = silo.Runtime.Catalog.ShardMap.SlotOf("{hot}:0");
        await Poll.UntilAsync(async () =>
        {
            for (var i = 0; i < 50; i++)
            {
                await client.CallAsync("GET", $"{{hot}}:{i}");
            }

            var busiest = CacheApi.Silos(await CacheApi.ReadAsync(http))[0].GetProperty("stats").GetProperty("busiestSlots");
            return busiest.GetArrayLength() > 0 && busiest[0].GetProperty("slot").GetInt32() == slot;
        }, what: $"slot {slot} to top the busiest slots");
    }

    [Fact]
    public async Task Busiest_slots_count_calls_through_the_gateway_client()
    {
        await using var silo = await DashboardSilo.StartAsync();
        using var http = DashboardHttp.For(silo.Endpoints.Http);
        await using var app = ClientHarness.GatewayApp(silo);
        var client = app.GetRequiredService<Cubby.Client.ICubbyClient>();
        var slot = silo.Runtime.Catalog.ShardMap.SlotOf("{gateway-hot}:0");
        await Poll.UntilAsync(async () =>
        {
            for (var i = 0; i < 50; i++)
            {
                await client.GetAsync($"{{gateway-hot}}:{i}");
            }

            var busiest = CacheApi.Silos(await CacheApi.ReadAsync(http))[0].GetProperty("stats").GetProperty("busiestSlots");
            return busiest.GetArrayLength() > 0 && busiest[0].GetProperty("slot").GetInt32() == slot;
        }, what: $"slot {slot}, read only through the gateway, to top the busiest slots");
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(100_000)]
    public async Task A_window_out_of_range_is_refused_naming_it(int seconds)
    {
        await using var silo = await DashboardSilo.StartAsync();
        using var http = DashboardHttp.For(silo.Endpoints.Http);
        using var response = await DashboardHttp.GetAsync(http, $"/dashboard/cache/api/silos?seconds={seconds}");
        Assert.Equal(System.Net.HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Contains("seconds must be from 0", await response.Content.ReadAsStringAsync(), StringComparison.Ordinal);
    }
}
