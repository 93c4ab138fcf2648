using Orleans.Runtime;
using Orleans.Runtime.Placement;

namespace Cubby.Grains.Placement;

/// <summary>
/// Activates a shard on its home silo among those that can host it, or where a migration's placement hint says
/// (a shard moving home names its target). Orleans' own placements would pile a burst of new shards onto one silo and
/// never bring them back when a silo joins; this one is deterministic, so every silo agrees where a shard belongs.
/// A silo that said it is stopping takes no shard while any other can.
/// </summary>
internal sealed class ShardPlacementDirector(ShardHomes homes) : IPlacementDirector
{
    public Task<SiloAddress> OnAddActivation(PlacementStrategy strategy, PlacementTarget target, IPlacementContext context)
    {
        var compatible = context.GetCompatibleSilos(target);
        var staying = Array.FindAll(compatible, silo => !homes.IsDeparting(silo));
        var silos = staying.Length > 0 ? staying : compatible;
        if (silos.Length == 0)
        {
            throw new OrleansException($"No active silo can host {target.GrainIdentity}: none runs Cubby's grains (siloBuilder.AddCubby()).");
        }

        if (IPlacementDirector.GetPlacementHint(target.RequestContextData, silos) is { } hint)
        {
            return Task.FromResult(hint);
        }

        return Task.FromResult(ShardHomes.Choose(checked((int)target.GrainIdentity.GetIntegerKey()), silos));
    }
}
