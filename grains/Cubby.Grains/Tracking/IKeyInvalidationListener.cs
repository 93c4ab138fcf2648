using Cubby.Sharding;
using Orleans.Services;

namespace Cubby.Grains.Tracking;

/// <summary>
/// Where a silo's shards tell another silo's tracking readers that keys they read changed: an Orleans grain service on
/// every silo holding shards, which hands the batches to that silo's <see cref="KeyInvalidationFeed"/>.
/// </summary>
[Alias("cubby.key-invalidations")]
internal interface IKeyInvalidationListener : IGrainService
{
    /// <summary>Takes a batch of invalidations, in the order their changes were made on the sending silo.</summary>
    [Alias("invalidated")]
    Task Invalidated(KeyInvalidation[] batch);
}

