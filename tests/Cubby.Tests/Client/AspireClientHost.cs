using Cubby.Silo.Hosting;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Cubby.Tests.Client;

/// <summary>An app's builder as an Aspire AppHost starts one: <c>ConnectionStrings:cache</c> and other settings in its configuration.</summary>
internal static class AspireClientHost
{
    /// <summary>The connection's name, as the AppHost named the resource.</summary>
    public const string ConnectionName = "cache";

    public const string ClusterId = "cubby-dev";

    public const string ServiceId = "cubby-svc";

    /// <summary>A silo with the cluster and service ids the connection strings here name.</summary>
    public static Task<TestSilo> StartSiloAsync() => TestSilo.StartAsync(options =>
    {
        options.ClusterId = ClusterId;
        options.Clustering.ServiceId = ServiceId;
    });

    /// <summary>The connection string an AppHost hands for <paramref name="gatewayPort"/>.</summary>
    public static string ConnectionString(int gatewayPort) => $"Endpoints=127.0.0.1:{gatewayPort};ClusterId={ClusterId};ServiceId={ServiceId}";

    public static HostApplicationBuilder CreateBuilder(Dictionary<string, string?> settings)
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Configuration.AddInMemoryCollection(settings);
        return builder;
    }

    /// <summary>A builder whose <c>ConnectionStrings:cache</c> names <paramref name="silo"/>'s gateway.</summary>
    public static HostApplicationBuilder CreateBuilder(TestSilo silo, Dictionary<string, string?>? settings = null)
    {
        var all = new Dictionary<string, string?>(settings ?? []) { [$"ConnectionStrings:{ConnectionName}"] = ConnectionString(silo.GatewayEndPoint.Port) };
        return CreateBuilder(all);
    }
}
