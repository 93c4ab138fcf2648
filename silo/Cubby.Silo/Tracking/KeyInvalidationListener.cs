using Cubby.Grains.Tracking;
using Cubby.Silo.Hosting;
using Orleans.Runtime.Services;

namespace Cubby.Silo.Tracking;

/// <summary>Takes the invalidations shards on any silo send this silo's tracking connections (<see cref="IKeyInvalidationListener"/>).</summary>
internal sealed class KeyInvalidationListener(GrainId id, global::Orleans.Runtime.Silo silo, ILoggerFactory loggers, IServiceProvider services)
    : GrainService(id, silo, loggers), IKeyInvalidationListener
{
    public Task Invalidated(KeyInvalidation[] batch)
    {
        services.GetRequiredService<SiloRuntime>().TrackedKeys.Invalidate(batch);
        return Task.CompletedTask;
    }
}
