using Cubby.Sharding;
using Microsoft.Extensions.Logging;
using Orleans.Runtime.Services;

namespace Cubby.Grains.Tracking;

/// <summary>Takes the invalidations that shards on other silos send this silo's tracking readers, into its <see cref="KeyInvalidationFeed"/>.</summary>
internal sealed class KeyInvalidationListener(GrainId id, global::Orleans.Runtime.Silo silo, ILoggerFactory loggers, KeyInvalidationFeed feed)
    : GrainService(id, silo, loggers), IKeyInvalidationListener
{
    public Task Invalidated(KeyInvalidation[] batch)
    {
        feed.Publish(batch);
        return Task.CompletedTask;
    }
}
