using Cubby.Cluster;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Cluster;

/// <summary>The view of a cluster of one: this silo owns every slot.</summary>
internal sealed class LocalClusterView(SiloRuntime silo, SiloEndpoints endpoints)
{
    private ClusterView? _view;

    /// <summary>The view, built once the listener's port is known.</summary>
    public ClusterView Current => _view ??= Create();

    private ClusterView Create()
    {
        var options = silo.Options;
        var host = options.AdvertisedHost
            ?? (options.Host switch
            {
                "localhost" => "127.0.0.1",
                "*" => Environment.MachineName,
                _ => options.Host,
            });
        var port = endpoints.Resp.Port;
        var id = $"{host}:{port}@{silo.StartedAt.ToUnixTimeMilliseconds()}";
        return new ClusterView(1, silo.Catalog.SlotCount, [new SiloEndpoint(id, host, port)]);
    }
}
