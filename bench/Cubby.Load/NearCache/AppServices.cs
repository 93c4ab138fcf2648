using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Cubby.Load.NearCache;

/// <summary>Ends a stack's services as a web app's host ends them: its hosted services stopped, then everything disposed.</summary>
internal static class AppServices
{
    private static readonly TimeSpan StopTimeout = TimeSpan.FromSeconds(10);

    /// <summary>
    /// Stops the hosted services (a Cubby client's gateway connection says goodbye there, releasing its near cache on
    /// each silo) in the reverse of their order, as a host does, then disposes <paramref name="services"/>.
    /// </summary>
    public static async ValueTask StopAsync(ServiceProvider services)
    {
        using var timeout = new CancellationTokenSource(StopTimeout);
        foreach (var hosted in services.GetServices<IHostedService>().Reverse())
        {
            await hosted.StopAsync(timeout.Token).ConfigureAwait(false);
        }

        await services.DisposeAsync().ConfigureAwait(false);
    }

    /// <summary>What stops <paramref name="services"/> (<see cref="StopAsync"/>) when disposed, for <c>await using</c>.</summary>
    public static IAsyncDisposable Stopping(ServiceProvider services) => new Stopper(services);

    private sealed class Stopper(ServiceProvider services) : IAsyncDisposable
    {
        public ValueTask DisposeAsync() => StopAsync(services);
    }
}
