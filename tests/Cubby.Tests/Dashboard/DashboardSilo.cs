using Cubby.Silo.Hosting;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;

namespace Cubby.Tests.Dashboard;

/// <summary>In-process silos with the dashboards on (test silos have them off unless asked, as they cost each start).</summary>
internal static class DashboardSilo
{
    public static Task<TestSilo> StartAsync(Action<SiloOptions>? configure = null, Action<IServiceCollection>? services = null) =>
        TestSilo.StartAsync(options => Enable(options, configure), services: services);

    public static Task<TestCluster> StartClusterAsync(int silos, Action<SiloOptions>? configure = null) =>
        TestCluster.StartAsync(silos, options => Enable(options, configure));

    private static void Enable(SiloOptions options, Action<SiloOptions>? configure)
    {
        options.Dashboard.Enabled = true;
        configure?.Invoke(options);
    }
}
