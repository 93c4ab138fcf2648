namespace Cubby.Silo.Cluster.Membership;

/// <summary>One vote that a silo is dead: which silo suspected it and when.</summary>
internal sealed record Suspicion(string BySiloId, DateTimeOffset At);
