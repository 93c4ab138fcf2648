using Cubby.Grains.Expiry;
using Microsoft.Extensions.Hosting;

namespace Cubby.Grains.Hosting;

/// <summary>
/// Runs the active expiry cycle over the shards active on this silo: one silo-wide timer rather than a grain timer per
/// shard, which cost CPU on 1024 idle shards and counted every tick as a grain call (docs/orleans-cluster.md).
/// </summary>
internal sealed class ExpiryService(ShardCatalog catalog) : IHostedService, IDisposable
{
    private readonly ExpiryCollector _collector = new(catalog, catalog.Time);

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _collector.Start();
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken)
    {
        _collector.Dispose();
        return Task.CompletedTask;
    }

    public void Dispose() => _collector.Dispose();
}
