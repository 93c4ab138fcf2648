using System.Net;
using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Silo.Hosting;
using Cubby.Tests.Client;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans.Configuration;
using Orleans.Hosting;

namespace Cubby.Tests.Infrastructure;

/// <summary>
/// A team's own Orleans silo in the test process that hosts Cubby's shards with <c>siloBuilder.AddCubby()</c> and
/// nothing else of Cubby's: no RESP front door, no HTTP. It joins a <see cref="TestCluster"/> on Development clustering.
/// </summary>
public sealed class PlainOrleansSilo : IAsyncDisposable
{
    private readonly IHost _host;

    private PlainOrleansSilo(IHost host) => _host = host;

    public IServiceProvider Services => _host.Services;

    internal ShardCatalog Catalog => _host.Services.GetRequiredService<ShardCatalog>();

    /// <summary>Starts the silo and joins the cluster whose primary silo listens at <paramref name="primary"/>.</summary>
    public static async Task<PlainOrleansSilo> StartAsync(IPEndPoint primary)
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Configuration["Cubby:MaxMemoryBytes"] = (256L * 1024 * 1024).ToString(System.Globalization.CultureInfo.InvariantCulture);
        builder.UseOrleans(silo =>
        {
            silo.UseDevelopmentClustering(primary);
            silo.Configure<ClusterOptions>(cluster => (cluster.ClusterId, cluster.ServiceId) = (CubbyDefaults.ClusterId, CubbyDefaults.ServiceId));
            silo.ConfigureEndpoints(IPAddress.Loopback, SiloProcess.FreePort(), SiloProcess.FreePort());
            silo.UseInMemoryReminderService();
            silo.AddCubby();
        });
        var host = builder.Build();
        await host.StartAsync();
        return new PlainOrleansSilo(host);
    }

    public async ValueTask DisposeAsync()
    {
        await _host.StopAsync();
        _host.Dispose();
    }
}
