using Cubby.Client.DependencyInjection;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;

namespace Cubby.Aspire.Client;

/// <summary>The client's traces and metrics in OpenTelemetry, as <see cref="CubbyClientSettings"/> asks.</summary>
internal static class CubbyTelemetry
{
    /// <summary>
    /// Orleans' meter (Orleans 10 creates it as <c>Microsoft.Orleans</c>): its client's messaging and gateway
    /// instruments. Cubby's client has no meter of its own; the silos' <c>Cubby</c> meter is theirs.
    /// </summary>
    public const string OrleansMeter = "Microsoft.Orleans";

    /// <summary>
    /// Where Orleans' activity propagation starts a grain call's activities: <c>Microsoft.Orleans.Application</c> for
    /// the shard grains, <c>Microsoft.Orleans.Runtime</c> for Orleans' own system calls.
    /// </summary>
    public static readonly string[] ActivitySources =
        [global::Orleans.Diagnostics.ActivitySources.ApplicationGrainActivitySourceName, global::Orleans.Diagnostics.ActivitySources.RuntimeActivitySourceName];

    public static void Add(IHostApplicationBuilder builder, CubbyClientSettings settings, ICubbyClientBuilder cubby)
    {
        if (!settings.DisableTracing)
        {
            cubby.WithDistributedTracing();
            builder.Services.AddOpenTelemetry().WithTracing(tracing => tracing.AddSource(ActivitySources));
        }

        if (!settings.DisableMetrics)
        {
            builder.Services.AddOpenTelemetry().WithMetrics(metrics => metrics.AddMeter(OrleansMeter));
        }
    }
}
