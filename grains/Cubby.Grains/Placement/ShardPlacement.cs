using Orleans.Placement;
using Orleans.Runtime;

namespace Cubby.Grains.Placement;

/// <summary>Places each shard grain on its home silo (see <see cref="ShardHomes"/>).</summary>
[GenerateSerializer, Immutable, SuppressReferenceTracking]
internal sealed class ShardPlacement : PlacementStrategy;

/// <summary>Marks a grain class as placed by <see cref="ShardPlacementDirector"/>.</summary>
[AttributeUsage(AttributeTargets.Class, AllowMultiple = false)]
internal sealed class ShardPlacementAttribute() : PlacementAttribute(new ShardPlacement());
