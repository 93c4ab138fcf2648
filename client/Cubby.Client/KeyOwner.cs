using Cubby.Cluster;

namespace Cubby.Client;

/// <summary>Where a key lives in the cluster view a client routes by.</summary>
/// <param name="Slot">The key's slot (the hash of the key, or of its <c>{hash tag}</c>, modulo the slot count).</param>
/// <param name="Silo">The silo that owns the slot, to which the client sends the key's commands.</param>
/// <param name="ViewVersion">The version of the view the owner was read from; a later view may move the slot.</param>
public sealed record KeyOwner(int Slot, SiloEndpoint Silo, long ViewVersion);
