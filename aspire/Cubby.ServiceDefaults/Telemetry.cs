using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

namespace Cubby.ServiceDefaults;

/// <summary>
/// OpenTelemetry through <c>OpenTelemetry.Extensions.Hosting</c>: metrics, traces and logs exported over OTLP, with
/// providers that start and flush with the host. Without an OTLP endpoint nothing is collected: the providers would
/// have nowhere to send it, and tracing every request for nobody costs allocations.
/// </summary>
internal static class Telemetry
{
    public const string EndpointSetting = "OTEL_EXPORTER_OTLP_ENDPOINT";

    /// <summary>
    /// The silo's meter, Orleans' own (messaging, grains, membership), and the built-in meters of ASP.NET Core, Kestrel,
    /// HttpClient and the runtime.
    /// </summary>
    public static readonly string[] Meters =
        ["Cubby", "Microsoft.Orleans", "Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Server.Kestrel", "System.Net.Http", "System.Runtime"];

    /// <summary>ASP.NET Core's requests, Orleans' grain calls and Cubby's own activities.</summary>
    public static readonly string[] ActivitySources = ["Microsoft.AspNetCore", "Microsoft.Orleans.*", "Cubby*"];

    public static void Add(IHostApplicationBuilder builder)
    {
        var configuration = builder.Configuration;
        if (string.IsNullOrWhiteSpace(configuration[EndpointSetting]))
        {
            return;
        }

        var serviceName = configuration["OTEL_SERVICE_NAME"] is { Length: > 0 } name ? name : builder.Environment.ApplicationName;

        // UseOtlpExporter sends all three signals; it reads OTEL_EXPORTER_OTLP_* from the host's configuration, so
        // appsettings.json works as well as the environment.
        builder.Services.AddOpenTelemetry()
            .ConfigureResource(resource => resource.AddService(serviceName))
            .WithMetrics(metrics => metrics.AddMeter(Meters))
            .WithTracing(tracing => tracing.AddSource(ActivitySources).SetSampler(new BackgroundCallSampler()))
            .WithLogging(configureBuilder: null, configureOptions: logs =>
            {
                logs.IncludeFormattedMessage = true;
                logs.IncludeScopes = true;
            })
            .UseOtlpExporter();
    }
}
