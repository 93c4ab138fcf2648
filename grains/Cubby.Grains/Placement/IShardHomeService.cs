using Orleans.Services;

namespace Cubby.Grains.Placement;

/// <summary>
/// What a stopping silo tells every other silo before it moves its shards off (an Orleans grain service, one per silo
/// that hosts shards). Orleans marks a stopping silo <c>ShuttingDown</c> only after its application stops, so without
/// this the others would go on sending shards to a silo that is emptying itself, and those shards would miss the way out.
/// </summary>
[Alias("cubby.shard-homes")]
internal interface IShardHomeService : IGrainService
{
    /// <summary>From now on <paramref name="silo"/> is no shard's home, and no shard is placed on it.</summary>
    [Alias("departing")]
    Task Departing(SiloAddress silo);
}
