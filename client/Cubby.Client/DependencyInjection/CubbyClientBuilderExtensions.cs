using Cubby.Client;
using Cubby.Client.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Orleans.Hosting;

#pragma warning disable IDE0130 // Extension methods live in the DI namespace, where callers already look for them.
namespace Microsoft.Extensions.DependencyInjection;
#pragma warning restore IDE0130

/// <summary>Options of the client that <c>AddCubbyClient</c> registered, chained on its <see cref="ICubbyClientBuilder"/>.</summary>
public static class CubbyClientBuilderExtensions
{
    /// <summary>
    /// Makes the client's calls carry the caller's trace (<see cref="System.Diagnostics.Activity.Current"/>) to the silos:
    /// Orleans' activity propagation (<c>AddActivityPropagation</c>) on Cubby's own gateway client. Each call then starts
    /// an activity of kind <c>Client</c> in Orleans' <c>Microsoft.Orleans.Application</c> source (child of the caller's
    /// activity) and hands its trace context to the silo, whose own propagation, if on, continues the trace there.
    /// </summary>
    /// <remarks>
    /// Off unless called: it costs each call an activity and a few request-context entries while anything listens.
    /// In a process that already runs Orleans (a silo, or an app with its own Orleans client) the client uses that
    /// runtime, whose tracing is the host's business (<c>siloBuilder.AddActivityPropagation()</c>), and this does
    /// nothing. Calling it again does nothing either. A call made inside an activity is then not coalesced with others
    /// (<see cref="CubbyClientOptions.CoalesceCalls"/>): it goes as its own shard call, so its trace shows that call.
    /// </remarks>
    /// <param name="builder">From <c>AddCubbyClient</c>.</param>
    /// <returns>The same builder.</returns>
    public static ICubbyClientBuilder WithDistributedTracing(this ICubbyClientBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var services = builder.Services;
        var runtime = services.LastOrDefault(descriptor => descriptor.ServiceType == typeof(ClientRuntime))?.ImplementationInstance as ClientRuntime
            ?? throw new InvalidOperationException("Call services.AddCubbyClient(...) before WithDistributedTracing().");
        if (runtime.InProcess || services.Any(descriptor => descriptor.ServiceType == typeof(DistributedTracingMarker)))
        {
            return builder;
        }

        services.AddSingleton<DistributedTracingMarker>();

        // The gateway client's builder is already registered; Orleans hands it back rather than adding a second client.
        services.AddOrleansClient(client => client.AddActivityPropagation());
        return builder;
    }

    /// <summary>Says that the gateway client propagates activities already, so the filters are added once.</summary>
    internal sealed class DistributedTracingMarker;
}
