using Orleans.Services;

namespace Cubby.Grains.Fencing;

/// <summary>
/// Asked by a silo that must confirm it is still a member of the cluster (<see cref="ServingFence"/>): an Orleans grain
/// service on every silo that hosts shards, answering with how it sees the asking silo.
/// </summary>
[Alias("cubby.membership-witness")]
internal interface IMembershipWitness : IGrainService
{
    /// <summary>The status this silo's view of the membership gives <paramref name="caller"/>.</summary>
    [Alias("status-of")]
    ValueTask<SiloStatus> StatusOf(SiloAddress caller);
}
