using Cubby.Grains.Commands;

namespace Cubby.Grains;

/// <summary>
/// The RESP side of a shard grain: the same grain as <see cref="Sharding.IShardGrain"/> (one class implements both),
/// reached under this interface by a silo's RESP front door when the shard is not active on that silo. It belongs to
/// the grain layer, not to the contracts a client shares: any silo hosting shards runs it, with or without a front door.
/// </summary>
public interface IShardCommands : IGrainWithIntegerKey
{
    /// <summary>
    /// Runs a command whose keys all belong to this shard, in the shard's turn, with the same handler a front door runs
    /// on a shard it holds, so every silo answers every key with the same bytes.
    /// </summary>
    /// <param name="command">The command's arguments.</param>
    /// <returns>Its one reply.</returns>
    ValueTask<RelayedReply> Run(RelayedCommand command);
}
