namespace Cubby.Client;

/// <summary>Where a key lives in the cluster, as a silo answered <c>CUBBY.OWNER</c>.</summary>
/// <param name="Slot">
/// The key's slot, the number of the shard that holds it: the hash of the key, or of its <c>{hash tag}</c>, modulo
/// the slot count (see <c>Cubby.Sharding.ShardMap</c>).
/// </param>
/// <param name="Silo">
/// The RESP endpoint, <c>host:port</c>, of the silo where that shard is active when the silo answered. The client
/// does not route by it: every silo serves every key, reaching its shard through the cluster. The shard may move
/// later (rebalancing, a silo leaving).
/// </param>
public sealed record KeyOwner(int Slot, string Silo);
