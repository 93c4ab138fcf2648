namespace Cubby.Client;

/// <summary>Where a key lives in the cluster, as its shard answered.</summary>
/// <param name="Slot">
/// The key's slot, the number of the shard that holds it: the hash of the key, or of its <c>{hash tag}</c>, modulo
/// the slot count (see <c>Cubby.Sharding.ShardMap</c>).
/// </param>
/// <param name="Silo">
/// The Orleans endpoint, <c>host:port</c> of the silo port, of the silo where that shard was active when it answered,
/// as the Orleans dashboard names silos. The shard may move later (rebalancing, a silo leaving); calls follow it.
/// </param>
public sealed record KeyOwner(int Slot, string Silo);
