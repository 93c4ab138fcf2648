using Cubby.Cluster;
using Cubby.Silo.Cluster.Slots;

namespace Cubby.Silo.Cluster.Routing;

/// <summary>Where a call for one slot goes from this silo right now.</summary>
internal readonly record struct SlotRoute(SlotRouteKind Kind, SiloEndpoint? Target = null)
{
    public static SlotRoute Decide(ClusterState cluster, int slot, int hops)
    {
        if (cluster.IsFenced)
        {
            return new(SlotRouteKind.Fenced);
        }

        var slots = cluster.Slots;
        switch (slots[slot])
        {
            case SlotState.Held:
                return new(SlotRouteKind.Local);
            case SlotState.Remote when hops < Forwarder.MaxHops && cluster.View is { } view:
                var owner = view.OwnerOf(slot);
                return owner.Id == cluster.SelfId ? new(SlotRouteKind.Wait) : new(SlotRouteKind.Forward, owner);
            case SlotState.Awaiting when hops == 0 && slots.AwaitedFrom(slot) is { } from && cluster.FindLiveSilo(from) is { } source:
                // The data is still on the previous owner; a call that already came from a silo waits here instead,
                // so two silos with different views cannot pass it back and forth.
                return new(SlotRouteKind.Forward, source);
            default:
                return new(SlotRouteKind.Wait);
        }
    }
}

/// <summary>The kinds of <see cref="SlotRoute"/>.</summary>
internal enum SlotRouteKind
{
    /// <summary>The slot's data is here.</summary>
    Local,

    /// <summary>Send it to <see cref="SlotRoute.Target"/>.</summary>
    Forward,

    /// <summary>The slot is moving (or no view yet): wait for a change, then decide again.</summary>
    Wait,

    /// <summary>This silo was declared dead; it serves no keys.</summary>
    Fenced,
}
