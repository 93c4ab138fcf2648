using Cubby.Resp;
using Orleans.Concurrency;

namespace Cubby.Grains;

/// <summary>
/// The RESP side of a shard grain: the same grain as <see cref="Sharding.IShardGrain"/> (one class implements both),
/// reached under this interface by a RESP front door when the shard is not active on its silo. It belongs to the grain
/// layer, not to the contracts a client shares: only silos run RESP commands.
/// </summary>
public interface IShardCommands : IGrainWithIntegerKey
{
    /// <summary>
    /// Runs a RESP command whose keys all belong to this shard and returns its reply, encoded for
    /// <paramref name="protocol"/>, so every silo answers every key with the same bytes.
    /// </summary>
    /// <param name="command">The command as a RESP array of bulk strings.</param>
    /// <param name="protocol">The protocol of the client connection the reply goes back to.</param>
    /// <returns>One whole RESP reply.</returns>
    [return: Immutable]
    ValueTask<byte[]> Execute([Immutable] byte[] command, RespVersion protocol);
}
