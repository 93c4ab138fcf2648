using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using OpenTelemetry;
using OpenTelemetry.Logs;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

namespace Cubby.ServiceDefaults;

/// <summary>
/// OpenTelemetry without <c>OpenTelemetry.Extensions.Hosting</c> (absent from the package feed): the meter and tracer
/// providers are singletons of the host's container, built when the host starts and disposed (flushing) with it.
/// Without an OTLP endpoint nothing is collected: the providers would have nowhere to send it, and tracing every
/// request for nobody costs allocations.
/// </summary>
internal static class Telemetry
{
    public const string EndpointSetting = "OTEL_EXPORTER_OTLP_ENDPOINT";

    /// <summary>The silo's meter and the built-in meters of ASP.NET Core, Kestrel, HttpClient and the runtime.</summary>
    public static readonly string[] Meters = ["Cubby", "Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Server.Kestrel", "System.Net.Http", "System.Runtime"];

    public static readonly string[] ActivitySources = ["Microsoft.AspNetCore", "Cubby*"];

    public static void Add(IHostApplicationBuilder builder)
    {
        var configuration = builder.Configuration;
        if (string.IsNullOrWhiteSpace(configuration[EndpointSetting]))
        {
            return;
        }

        var serviceName = configuration["OTEL_SERVICE_NAME"] is { Length: > 0 } name ? name : builder.Environment.ApplicationName;
        builder.Logging.AddOpenTelemetry(logs =>
        {
            logs.IncludeFormattedMessage = true;
            logs.IncludeScopes = true;
            logs.SetResourceBuilder(ResourceBuilder.CreateDefault().AddService(serviceName));
            logs.AddOtlpExporter();
        });

        // The exporters read OTEL_EXPORTER_OTLP_* from the host's configuration, so appsettings.json works as well as the environment.
        builder.Services.AddSingleton(_ => Sdk.CreateMeterProviderBuilder()
            .ConfigureServices(services => services.AddSingleton<IConfiguration>(configuration))
            .ConfigureResource(resource => resource.AddService(serviceName))
            .AddMeter(Meters)
            .AddOtlpExporter()
            .Build());
        builder.Services.AddSingleton(_ => Sdk.CreateTracerProviderBuilder()
            .ConfigureServices(services => services.AddSingleton<IConfiguration>(configuration))
            .ConfigureResource(resource => resource.AddService(serviceName))
            .AddSource(ActivitySources)
            .AddOtlpExporter()
            .Build());
        builder.Services.AddHostedService<TelemetryStarter>();
    }

    /// <summary>Builds the providers as the host starts, so they listen from the first request.</summary>
    private sealed class TelemetryStarter(MeterProvider meters, TracerProvider traces) : IHostedService
    {
        public Task StartAsync(CancellationToken cancellationToken)
        {
            GC.KeepAlive(meters);
            GC.KeepAlive(traces);
            return Task.CompletedTask;
        }

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
