namespace Cubby.Silo.Cluster.Slots;

/// <summary>What this silo can do with a slot's calls right now.</summary>
internal enum SlotState
{
    /// <summary>No view yet: calls wait for the first one.</summary>
    Unassigned,

    /// <summary>This silo has the slot's data: calls run here.</summary>
    Held,

    /// <summary>The slot's data is being handed off: calls wait, then go to the new owner.</summary>
    Frozen,

    /// <summary>This silo owns the slot by the view but its data is still on the previous owner: calls go there.</summary>
    Awaiting,

    /// <summary>Another silo owns the slot: calls are forwarded to it.</summary>
    Remote,
}
