using Cubby.ServiceDefaults;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Diagnostics.HealthChecks;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Console;

#pragma warning disable IDE0130 // Extension methods live in the hosting namespace, where callers already look for them.
namespace Microsoft.Extensions.Hosting;
#pragma warning restore IDE0130

/// <summary>What every Cubby service adds: health checks and OpenTelemetry (see <see cref="AddServiceDefaults{TBuilder}"/>).</summary>
public static class ServiceDefaultsExtensions
{
    /// <summary>The tag of health checks that say only whether the process is alive, served at <c>/alive</c>.</summary>
    public const string LivenessTag = "live";

    /// <summary>
    /// Adds a <c>self</c> liveness health check, and, when <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> is configured (an
    /// environment variable or a setting), OpenTelemetry metrics (meters <c>Cubby</c>, ASP.NET Core, Kestrel,
    /// System.Net.Http and System.Runtime), traces (ASP.NET Core and <c>Cubby*</c> activity sources) and logs, exported
    /// over OTLP. The other <c>OTEL_*</c> variables (protocol, headers, service name) apply as the OpenTelemetry SDK
    /// defines them.
    /// </summary>
    /// <typeparam name="TBuilder">The application builder's type.</typeparam>
    /// <param name="builder">The application builder.</param>
    /// <returns>The builder.</returns>
    public static TBuilder AddServiceDefaults<TBuilder>(this TBuilder builder)
        where TBuilder : IHostApplicationBuilder
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.Services.AddHealthChecks().AddCheck("self", static () => HealthCheckResult.Healthy(), [LivenessTag]);

        // Structured logs without a collector: Logging:Console:FormatterName=json (the slim builder only knows "simple").
        if (string.Equals(builder.Configuration["Logging:Console:FormatterName"], ConsoleFormatterNames.Json, StringComparison.OrdinalIgnoreCase))
        {
            builder.Logging.AddJsonConsole();
        }
        Telemetry.Add(builder);
        return builder;
    }

    /// <summary>Maps <c>/health</c> (every health check) and <c>/alive</c> (the liveness checks).</summary>
    /// <param name="endpoints">The application.</param>
    /// <returns>The application.</returns>
    public static IEndpointRouteBuilder MapDefaultEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapHealthChecks("/health");
        return endpoints.MapAliveEndpoint();
    }

    /// <summary>Maps only <c>/alive</c> (the liveness checks), for hosts that map <c>/health</c> themselves.</summary>
    /// <param name="endpoints">The application.</param>
    /// <returns>The application.</returns>
    public static IEndpointRouteBuilder MapAliveEndpoint(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapHealthChecks("/alive", new HealthCheckOptions { Predicate = static check => check.Tags.Contains(LivenessTag) });
        return endpoints;
    }
}
