using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging.Console;
using Microsoft.Extensions.Options;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;

namespace Cubby.Tests.AppHost;

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
    public async Task An_OTLP_endpoint_turns_on_metrics_and_traces()
    {
        await using var app = Build(("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"));

        Assert.NotNull(app.Services.GetService<MeterProvider>());
        Assert.NotNull(app.Services.GetService<TracerProvider>());
    }

    [Fact]
    public async Task The_json_console_formatter_gives_structured_logs()
    {
        await using var app = Build(("Logging:Console:FormatterName", "json"));

        Assert.Equal(ConsoleFormatterNames.Json, app.Services.GetRequiredService<IOptionsMonitor<ConsoleLoggerOptions>>().CurrentValue.FormatterName);
    }
}
