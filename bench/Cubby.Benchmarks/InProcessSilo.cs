using Cubby.Silo.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Cubby.Benchmarks;

/// <summary>A whole silo in the benchmark's process, on free loopback ports, without logging.</summary>
internal static class InProcessSilo
{
    /// <summary>Builds and starts it.</summary>
    /// <param name="dashboard">Whether it serves the Orleans dashboard (<c>Cubby:Dashboard:Enabled</c>).</param>
    /// <param name="services">Adds services after the silo's (a co-hosted client).</param>
    /// <returns>The started silo.</returns>
    public static async Task<WebApplication> StartAsync(bool dashboard, Action<IServiceCollection>? services = null)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.AddCubbySilo(options =>
        {
            options.UseEphemeralLoopbackPorts();
            options.Dashboard.Enabled = dashboard;
        });
        services?.Invoke(builder.Services);
        var silo = builder.Build();
        silo.MapCubbySilo();
        await silo.StartAsync().ConfigureAwait(false);
        return silo;
    }
}
