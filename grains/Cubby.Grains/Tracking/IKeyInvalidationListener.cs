using Cubby.Sharding;
using Orleans.Services;

namespace Cubby.Grains.Tracking;

/// <summary>
/// Where a silo's shards tell a tracking reader that keys it read changed: an Orleans grain service on each silo whose
/// RESP door serves <c>CLIENT TRACKING</c>. The grain layer owns the contract; the door implements it.
/// </summary>
[Alias("cubby.key-invalidations")]
internal interface IKeyInvalidationListener : IGrainService
{
    /// <summary>Takes a batch of invalidations, in the order their changes were made on the sending silo.</summary>
    [Alias("invalidated")]
    Task Invalidated(KeyInvalidation[] batch);
}

/// <summary>
/// This silo's own <see cref="IKeyInvalidationListener"/>, registered by a silo with a RESP door: its shards hand
/// invalidations for its own tracking connections to it directly, without a grain call to themselves.
/// </summary>
internal interface ILocalKeyInvalidations
{
    /// <summary>Takes a batch of invalidations, in the order their changes were made.</summary>
    void Invalidated(KeyInvalidation[] batch);
}
