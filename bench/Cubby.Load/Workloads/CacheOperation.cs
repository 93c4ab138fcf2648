namespace Cubby.Load.Workloads;

/// <summary>What every caller of a closed-loop phase does, over and over.</summary>
internal enum CacheOperation
{
    Set,
    Get,
}
