using System.Diagnostics.Metrics;
using Cubby.Tests.Client;
using Cubby.Tests.Infrastructure;
using Cubby.Tests.Silo;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Metrics;

/// <summary><c>GET /metrics</c> and the <c>Cubby</c> meter follow the commands a real silo runs.</summary>
public sealed class MetricsEndpointTests(SharedSiloFixture fixture) : IClassFixture<SharedSiloFixture>
{
    private const string GetOk = "cubby_commands_total{command=\"get\",result=\"ok\"}";
    private const string SetOk = "cubby_commands_total{command=\"set\",result=\"ok\"}";
    private const string IncrError = "cubby_commands_total{command=\"incr\",result=\"error\"}";

    [Fact]
    public async Task Command_hit_miss_and_error_counts_rise_as_commands_run()
    {
        using var http = Http();
        var before = await PrometheusText.ReadAsync(http);
        var key = "metrics:" + Guid.NewGuid();
        await using var client = await fixture.Silo.ConnectAsync();
        RespAssert.Ok(await client.CallAsync("SET", key, "abc"));
        for (var i = 0; i < 5; i++)
        {
            RespAssert.Bulk("abc", await client.CallAsync("GET", key));
        }

        RespAssert.Null(await client.CallAsync("GET", key + ":missing"));
        RespAssert.Error("ERR value is not an integer", await client.CallAsync("INCR", key));

        // Other tests share the silo, so counts may rise further; they never rise less than this connection's own.
        var after = await PrometheusText.ReadAsync(http);
        Assert.True(Rise(before, after, GetOk) >= 6, $"get ok rose by {Rise(before, after, GetOk)}");
        Assert.True(Rise(before, after, SetOk) >= 1);
        Assert.True(Rise(before, after, IncrError) >= 1);
        Assert.True(Rise(before, after, "cubby_hits_total") >= 5);
        Assert.True(Rise(before, after, "cubby_misses_total") >= 1);
        Assert.True(Rise(before, after, "cubby_command_duration_seconds_count") >= 8);
        Assert.True(PrometheusText.Value(after, "cubby_entries") >= 1);
        Assert.True(PrometheusText.Value(after, "cubby_memory_used_bytes") > 0);
        Assert.True(PrometheusText.Value(after, "cubby_connections") >= 1);
    }

    [Fact]
    public async Task Every_family_has_help_and_type_lines()
    {
        using var http = Http();
        var text = await PrometheusText.ReadAsync(http);
        foreach (var (name, type) in new[]
        {
            ("cubby_commands_total", "counter"), ("cubby_hits_total", "counter"), ("cubby_misses_total", "counter"),
            ("cubby_evictions_total", "counter"), ("cubby_expirations_total", "counter"), ("cubby_entries", "gauge"),
            ("cubby_memory_used_bytes", "gauge"), ("cubby_migrated_shards_total", "counter"), ("cubby_relayed_total", "counter"),
            ("cubby_connections", "gauge"), ("cubby_command_duration_seconds", "histogram"),
        })
        {
            Assert.Contains($"# HELP {name} ", text, StringComparison.Ordinal);
            Assert.Contains($"# TYPE {name} {type}\n", text, StringComparison.Ordinal);
        }

        Assert.Contains("cubby_command_duration_seconds_bucket{le=\"+Inf\"} ", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Expired_keys_are_counted()
    {
        using var http = Http();
        var before = PrometheusText.Value(await PrometheusText.ReadAsync(http), "cubby_expirations_total");
        await using var client = await fixture.Silo.ConnectAsync();
        var key = "metrics:expiring:" + Guid.NewGuid();
        RespAssert.Ok(await client.CallAsync("SET", key, "v", "PX", "1"));

        // Reading an expired key removes it (lazy expiry), so polling GET ends once it has expired.
        await Poll.UntilAsync(async () => (await client.CallAsync("GET", key)).IsNull, what: "the key to expire");
        Assert.True(PrometheusText.Value(await PrometheusText.ReadAsync(http), "cubby_expirations_total") >= before + 1);
    }

    [Fact]
    public async Task The_Cubby_meter_reports_commands_by_name_and_result()
    {
        var key = "meter:" + Guid.NewGuid();
        await using var client = await fixture.Silo.ConnectAsync();
        RespAssert.Ok(await client.CallAsync("SET", key, "1"));
        RespAssert.Error("ERR wrong number of arguments", await client.CallAsync("GET"));

        var seen = new Dictionary<string, long>();

        // Other tests run silos in this process too, each with a Cubby meter of its own: listen to this silo's only.
        var meters = fixture.Silo.Services.GetRequiredService<IMeterFactory>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == "Cubby" && instrument.Meter.Scope == meters && instrument.Name is "cubby.commands" or "cubby.entries")
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            var labels = string.Join(",", tags.ToArray().Select(tag => $"{tag.Key}={tag.Value}"));
            lock (seen)
            {
                seen[$"{instrument.Name}[{labels}]"] = value;
            }
        });
        listener.Start();
        listener.RecordObservableInstruments();

        Assert.True(seen.GetValueOrDefault("cubby.commands[command=set,result=ok]") >= 1, string.Join("; ", seen.Keys));
        Assert.True(seen.GetValueOrDefault("cubby.commands[command=get,result=error]") >= 1, string.Join("; ", seen.Keys));
        Assert.True(seen.GetValueOrDefault("cubby.entries[]") >= 1, string.Join("; ", seen.Keys));
    }

    private static double Rise(string before, string after, string series) => PrometheusText.Value(after, series) - PrometheusText.Value(before, series);

    private HttpClient Http() => new() { BaseAddress = new Uri($"http://{fixture.Silo.Endpoints.Http}"), Timeout = TestDeadlines.Call };
}
