using Cubby.Grains.Tracking;
using Cubby.Sharding;
using Cubby.Silo.Hosting;
using Orleans.Runtime.Services;

namespace Cubby.Silo.Tracking;

/// <summary>
/// Takes the invalidations shards on other silos send this silo's tracking connections (<see cref="IKeyInvalidationListener"/>);
/// this silo's own shards hand theirs to <see cref="TrackedKeys"/> directly (<see cref="ILocalKeyInvalidations"/>).
/// </summary>
internal sealed class KeyInvalidationListener(GrainId id, global::Orleans.Runtime.Silo silo, ILoggerFactory loggers, IServiceProvider services)
    : GrainService(id, silo, loggers), IKeyInvalidationListener
{
    public Task Invalidated(KeyInvalidation[] batch)
    {
        services.GetRequiredService<SiloRuntime>().TrackedKeys.Invalidated(batch);
        return Task.CompletedTask;
    }
}
