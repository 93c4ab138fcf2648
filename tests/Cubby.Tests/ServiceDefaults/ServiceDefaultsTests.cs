using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging.Console;
using Microsoft.Extensions.Options;
using Cubby.Tests.Infrastructure;
using OpenTelemetry.Logs;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;

namespace Cubby.Tests.ServiceDefaults;

/// <summary>What <c>AddServiceDefaults</c> registers, by configuration.</summary>
public sealed class ServiceDefaultsTests
{
    private static WebApplication Build(params (string Key, string Value)[] settings)
    {
        var builder = WebApplication.CreateSlimBuilder();
        foreach (var (key, value) in settings)
        {
            builder.Configuration[key] = value;
        }

        builder.AddServiceDefaults();
        return builder.Build();
    }

    [Fact]
    public async Task Without_an_OTLP_endpoint_nothing_is_collected_and_logs_stay_plain()
    {
        await using var app = Build();

        Assert.Null(app.Services.GetService<MeterProvider>());
        Assert.Null(app.Services.GetService<TracerProvider>());
        Assert.NotEqual(ConsoleFormatterNames.Json, app.Services.GetRequiredService<IOptionsMonitor<ConsoleLoggerOptions>>().CurrentValue.FormatterName);
    }

    [Fact]
    public async Task An_OTLP_endpoint_turns_on_metrics_traces_and_logs()
    {
        await using var app = Build(("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"));

        Assert.NotNull(app.Services.GetService<MeterProvider>());
        Assert.NotNull(app.Services.GetService<TracerProvider>());
        Assert.NotNull(app.Services.GetService<LoggerProvider>());
    }

    [Fact]
    public async Task A_silo_configured_for_OTLP_starts_without_a_collector_and_serves_RESP_and_metrics()
    {
        // Nothing listens at the endpoint: exporting fails in the background, and the silo serves all the same.
        using var silo = await SiloProcess.StartAsync("--OTEL_EXPORTER_OTLP_ENDPOINT", $"http://127.0.0.1:{SiloProcess.FreePort()}", "--OTEL_SERVICE_NAME", "silo-otlp");
        await using var client = await RespTestClient.ConnectAsync(silo.RespEndPoint);
        RespAssert.Ok(await client.CallAsync("SET", "k", "v"));

        using var http = new HttpClient();
        var metrics = await http.GetStringAsync(new Uri($"http://127.0.0.1:{silo.HttpPort}/metrics"));

        // The silo's first SET reaches its shard through the grain (relayed): it counts as soon as it is answered.
        Assert.True(metrics.Contains("cubby_commands_total{command=\"set\",result=\"ok\"} 1", StringComparison.Ordinal), metrics);
    }

    [Fact]
    public async Task The_json_console_formatter_gives_structured_logs()
    {
        await using var app = Build(("Logging:Console:FormatterName", "json"));

        Assert.Equal(ConsoleFormatterNames.Json, app.Services.GetRequiredService<IOptionsMonitor<ConsoleLoggerOptions>>().CurrentValue.FormatterName);
    }
}
