namespace Cubby.Load.Workloads;

/// <summary>One concurrent caller's handle on the server under test; callers of one target share its connection.</summary>
internal interface ICacheCaller
{
    /// <summary>Writes key number <paramref name="key"/> with the workload's value and expiry.</summary>
    ValueTask SetAsync(int key);

    /// <summary>Reads key number <paramref name="key"/>; false on a miss.</summary>
    ValueTask<bool> GetAsync(int key);
}
