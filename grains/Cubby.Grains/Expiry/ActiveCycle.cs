namespace Cubby.Grains.Expiry;

/// <summary>What one active expiry cycle did: the entries it removed and the shards it sampled.</summary>
internal readonly record struct ActiveCycle(int Removed, int ShardsSampled);
