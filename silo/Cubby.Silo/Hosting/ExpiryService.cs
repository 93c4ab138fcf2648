using Cubby.Grains.Expiry;

namespace Cubby.Silo.Hosting;

/// <summary>Runs the grains' active expiry cycle and full sweep for the life of the silo.</summary>
internal sealed class ExpiryService(SiloRuntime silo) : IHostedService, IDisposable
{
    private readonly ExpiryCollector _collector = new(silo.Catalog, silo.Time);

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
