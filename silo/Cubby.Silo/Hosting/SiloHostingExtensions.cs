using System.Net;
using Cubby.Grains;
using Cubby.Grains.Hosting;
using Cubby.Silo.Clustering;
using Cubby.Silo.Dashboard;
using Cubby.Silo.Diagnostics;
using Cubby.Silo.Protocol;
using Cubby.Silo.PubSub;
using Cubby.Silo.Routing;
using Cubby.Tls;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using Orleans.Configuration;
using Orleans.Dashboard;

namespace Cubby.Silo.Hosting;

/// <summary>Hosts a Cubby silo in an ASP.NET Core application.</summary>
public static class SiloHostingExtensions
{
    /// <summary>
    /// Adds a Cubby silo: an Orleans silo (clustering from <c>Cubby:Clustering</c>) hosting Cubby's shard grains, its
    /// options (section <c>Cubby</c>, validated at start), and Kestrel listeners on <see cref="SiloOptions.RespPort"/>
    /// (the RESP front door; TLS with <c>Cubby:Tls</c>, through Kestrel's TLS middleware) and
    /// <see cref="SiloOptions.HttpPort"/> (HTTP). Kestrel serves only these listeners, so
    /// set <c>Cubby:HttpPort</c> to the port the host application should serve HTTP on.
    /// </summary>
    /// <param name="builder">The application builder.</param>
    /// <param name="configure">Changes applied after configuration binding.</param>
    /// <returns>The builder.</returns>
    public static WebApplicationBuilder AddCubbySilo(this WebApplicationBuilder builder, Action<SiloOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var options = CubbyOptions.Register(builder.Services, builder.Configuration, configure);
        SocketEngine.Configure(options);

        builder.UseOrleans(silo =>
        {
            OrleansClustering.Configure(silo, options);
            silo.Services.AddSingleton<ILifecycleParticipant<ISiloLifecycle>, ListeningPortCheck>();
            silo.Services.AddSingleton(static services => new RespFrontDoor(() => services.GetRequiredService<SiloRuntime>().RespEndpoint));
            silo.AddCubbyShards(options);
            silo.AddGrainService<SiloReportService>();
            silo.Services.TryAddSingleton<SiloReports>();
            silo.AddGrainService<PubSubService>();
            silo.Services.TryAddSingleton<PubSubPeers>();
            silo.Configure<SiloMessagingOptions>(messaging => messaging.ResponseTimeout = options.Clustering.CallTimeout);
            silo.Configure<GrainDirectoryOptions>(directory => directory.CacheSize = DirectoryCacheSizeOf(options));
            if (options.Dashboard.Enabled)
            {
                silo.AddDashboard();
            }
        });

        builder.Services.AddSingleton<SiloRuntime>();
        builder.Services.AddSingleton<SiloEndpoints>();
        builder.Services.AddSingleton<PipelinedConnections>();
        builder.Services.AddHealthChecks();
        builder.Services.AddMetrics();
        builder.Services.AddSingleton<CubbyMeter>();
        builder.Services.AddHostedService(static services => services.GetRequiredService<CubbyMeter>());
        builder.Services.AddHostedService<SeriesSampler>();
        builder.Services.AddSingleton<CacheReportGatherer>();
        builder.Services.AddSingleton<RecentDeaths>();
        builder.Services.AddHostedService(static services => services.GetRequiredService<RecentDeaths>());
        builder.Services.AddSingleton<DashboardAssets>();
        DashboardAuthentication.AddServices(builder.Services, options.Dashboard);
        builder.Services.AddSingleton<IMemoryPoolFactory<byte>, LargeBlockMemoryPoolFactory>();
        builder.Services.AddOptions<HostOptions>().Configure<IOptions<SiloOptions>>((host, silo) => host.ShutdownTimeout = silo.Value.ShutdownTimeout);
        builder.Services.AddOptions<SocketTransportOptions>().Configure<IOptions<SiloOptions>>((sockets, silo) =>
        {
            sockets.UnsafePreferInlineScheduling = silo.Value.InlineScheduling;

            // A command is consumed only once whole; the pipe must be able to hold the largest allowed one.
            sockets.MaxReadBufferSize = silo.Value.MaxRequestBytes + 64 * 1024;
        });
        builder.WebHost.ConfigureKestrel((context, kestrel) =>
        {
            var silo = kestrel.ApplicationServices.GetRequiredService<IOptions<SiloOptions>>().Value;
            var endpoints = kestrel.ApplicationServices.GetRequiredService<SiloEndpoints>();
            var certificate = silo.Tls.Enabled ? CertificateFiles.LoadWithKey(silo.Tls, TlsOptions.SectionName) : null;
            Listen(kestrel, silo.Host, silo.RespPort, listener =>
            {
                if (certificate is not null && silo.Tls.Port is null)
                {
                    listener.UseHttps(certificate);
                    endpoints.AddRespTls(listener);
                }

                listener.UseConnectionHandler<RespConnectionHandler>();
                endpoints.AddResp(listener);
            });
            if (certificate is not null && silo.Tls.Port is { } tlsPort)
            {
                Listen(kestrel, silo.Host, tlsPort, listener =>
                {
                    listener.UseHttps(certificate);
                    listener.UseConnectionHandler<RespConnectionHandler>();
                    endpoints.AddRespTls(listener);
                });
            }

            Listen(kestrel, silo.Host, silo.HttpPort, endpoints.AddHttp);
        });
        return builder;
    }

    /// <summary>
    /// How many grain locations the silo's directory cache remembers. A Cubby silo's grains are its shards and a few of
    /// Orleans' own, so twice the slots always fit; Orleans' default of a million allocated 18 MB of tables at start
    /// for them. A location the cache lacks costs one directory lookup, never a wrong answer.
    /// </summary>
    internal static int DirectoryCacheSizeOf(SiloOptions options) => Math.Max(4096, 2 * options.SlotCount);

    /// <summary>
    /// Maps the silo's HTTP endpoints: <c>/health</c>, <c>/cluster</c> (Orleans' members, every silo's shards and entries),
    /// <c>/metrics</c> (Prometheus text format) and, with <c>Cubby:Dashboard:Enabled</c>, the Orleans
    /// dashboard at <c>/dashboard</c> and Cubby's cache page at <c>/dashboard/cache</c> with its JSON API at
    /// <c>/dashboard/cache/api/silos</c>.
    /// </summary>
    /// <param name="app">The application.</param>
    /// <returns>The application.</returns>
    public static WebApplication MapCubbySilo(this WebApplication app)
    {
        ArgumentNullException.ThrowIfNull(app);
        app.MapHealthChecks("/health");
        app.MapGet("/cluster", static async (SiloRuntime silo) =>
            Results.Json(await ClusterReport.GatherAsync(silo).ConfigureAwait(false), ClusterReportJson.Default.ClusterReport));
        DashboardEndpoints.Map(app);
        return app;
    }

    private static void Listen(KestrelServerOptions kestrel, string host, int port, Action<ListenOptions> configure)
    {
        if (host == "*")
        {
            kestrel.ListenAnyIP(port, configure);
        }
        else if (host == "localhost" && port != 0)
        {
            kestrel.ListenLocalhost(port, configure);
        }
        else
        {
            kestrel.Listen(host == "localhost" ? IPAddress.Loopback : IPAddress.Parse(host), port, configure);
        }
    }
}
