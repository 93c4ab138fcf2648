using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Dashboard;

/// <summary>The dashboard API of one silo shows the whole in-process cluster, each silo asked through its Orleans grain service.</summary>
public sealed class DashboardApiTests
{
    [Fact]
    public async Task One_silo_reports_every_silo_with_its_series_and_a_graceful_leave()
    {
        await using var cluster = await TestCluster.StartAsync(3, options => options.SlotCount = 64);
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

        // Every member answers with its numbers; keys across the cluster add up to what was written.
        await Poll.UntilAsync(async () =>
        {
            var report = await DashboardApi.ReadAsync(http);
            var silos = DashboardApi.Silos(report);
            return silos.Length == 3
                && silos.All(silo => DashboardApi.Status(silo) == "Active" && silo.GetProperty("reachable").GetBoolean() && DashboardApi.HasStats(silo))
                && silos.Sum(silo => silo.GetProperty("stats").GetProperty("keys").GetInt64()) == 200
                && silos.Sum(silo => silo.GetProperty("slots").GetInt32()) == 64
                && silos.All(silo => silo.GetProperty("stats").GetProperty("series").GetProperty("ops").GetArrayLength() > 0);
        }, TimeSpan.FromSeconds(60), "all three silos reported with stats and 200 keys");

        var report = await DashboardApi.ReadAsync(http);
        Assert.Equal(ids.Order(), DashboardApi.Silos(report).Select(silo => silo.GetProperty("id").GetString()).Order());
        Assert.Contains(report.GetProperty("events").EnumerateArray(), e => e.GetProperty("change").GetString() == "joined" && e.GetProperty("siloId").GetString() == ids[2]);

        // A silo that leaves shows as dead and unreachable, with its leave among the events; the API still answers.
        await cluster.StopAsync(cluster.Silos[2]);
        await Poll.UntilAsync(async () =>
        {
            var now = await DashboardApi.ReadAsync(http);
            var gone = DashboardApi.Silo(now, ids[2]);
            return DashboardApi.Status(gone) == "Dead" && !gone.GetProperty("reachable").GetBoolean()
                && now.GetProperty("events").EnumerateArray().Any(e => e.GetProperty("siloId").GetString() == ids[2] && e.GetProperty("change").GetString() == "left");
        }, what: "the stopped silo to show as dead with a 'left' event");
    }

    [Fact]
    public async Task Busiest_slots_rank_the_slot_under_load_first()
    {
        await using var silo = await TestSilo.StartAsync();
        using var http = DashboardHttp.For(silo.Endpoints.Http);
        await using var client = await silo.ConnectAsync();
        var slot = silo.Runtime.Catalog.ShardMap.SlotOf("{hot}:0");
        await Poll.UntilAsync(async () =>
        {
            for (var i = 0; i < 50; i++)
            {
                await client.CallAsync("GET", $"{{hot}}:{i}");
            }

            var busiest = DashboardApi.Silos(await DashboardApi.ReadAsync(http))[0].GetProperty("stats").GetProperty("busiestSlots");
            return busiest.GetArrayLength() > 0 && busiest[0].GetProperty("slot").GetInt32() == slot;
        }, what: $"slot {slot} to top the busiest slots");
    }
}
