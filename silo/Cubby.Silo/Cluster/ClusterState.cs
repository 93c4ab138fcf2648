using Cubby.Cluster;
using Cubby.Silo.Cluster.Membership;
using Cubby.Silo.Cluster.Slots;

namespace Cubby.Silo.Cluster;

/// <summary>
/// What this silo knows of its cluster right now: the view clients are given, every member's row, and where each
/// slot's data is. Written by the <see cref="ClusterCoordinator"/>; read by every call.
/// </summary>
internal sealed class ClusterState
{
    private ClusterView? _view;
    private MembershipSnapshot? _members;
    private TaskCompletionSource _viewChanged = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public ClusterState(int slotCount, bool standalone)
    {
        IsStandalone = standalone;
        Slots = new SlotDirectory(slotCount, standalone ? SlotState.Held : SlotState.Unassigned);
    }

    public SlotDirectory Slots { get; }

    /// <summary>
    /// Held while slot states are moved to a new view and while a finished handoff settles a slot, so neither acts on
    /// a view the other is replacing.
    /// </summary>
    public Lock Transitions { get; } = new();

    /// <summary>A cluster of one (<c>Localhost</c> clustering): every slot is always here, so calls skip the slot gates.</summary>
    public bool IsStandalone { get; }

    /// <summary>The current view; null until this silo has joined.</summary>
    public ClusterView? View => Volatile.Read(ref _view);

    /// <summary>How many slots each silo of <paramref name="view"/> owns, by silo id (empty without a view).</summary>
    public static Dictionary<string, int> CountOwnedSlots(ClusterView? view)
    {
        var owned = new Dictionary<string, int>(StringComparer.Ordinal);
        for (var slot = 0; view is not null && slot < view.SlotCount; slot++)
        {
            var owner = view.OwnerOf(slot).Id;
            owned[owner] = owned.GetValueOrDefault(owner) + 1;
        }

        return owned;
    }

    /// <summary>The membership table as last read; null until this silo has joined.</summary>
    public MembershipSnapshot? Members => Volatile.Read(ref _members);

    /// <summary>This silo's id in the cluster; null until it has joined.</summary>
    public string? SelfId { get; private set; }

    /// <summary>Set when the cluster declared this silo dead: it serves no keys any more.</summary>
    public bool IsFenced { get; private set; }

    /// <summary>Completes at the next view change.</summary>
    public Task ViewChanged => Volatile.Read(ref _viewChanged).Task;

    /// <summary>A live member (joining, active or leaving) by id, or null when it is gone or unknown.</summary>
    public SiloEndpoint? FindLiveSilo(string siloId)
    {
        foreach (var row in Members?.Entries ?? [])
        {
            var entry = row.Entry;
            if (entry.SiloId == siloId)
            {
                return entry.Status == SiloStatus.Dead ? null : new SiloEndpoint(entry.SiloId, entry.Host, entry.Port);
            }
        }

        return null;
    }

    /// <summary>Every live member but this silo: where cluster-wide commands (DBSIZE, FLUSHALL, KEYS) go.</summary>
    public IReadOnlyList<SiloEndpoint> LivePeers()
    {
        var peers = new List<SiloEndpoint>();
        foreach (var row in Members?.Entries ?? [])
        {
            var entry = row.Entry;
            if (entry.Status != SiloStatus.Dead && entry.SiloId != SelfId)
            {
                peers.Add(new SiloEndpoint(entry.SiloId, entry.Host, entry.Port));
            }
        }

        return peers;
    }

    internal void Publish(string selfId, MembershipSnapshot members, ClusterView view)
    {
        SelfId = selfId;
        Volatile.Write(ref _members, members);
        Volatile.Write(ref _view, view);
        Interlocked.Exchange(ref _viewChanged, new(TaskCreationOptions.RunContinuationsAsynchronously)).TrySetResult();
    }

    internal void PublishMembers(MembershipSnapshot members) => Volatile.Write(ref _members, members);

    internal void Fence()
    {
        IsFenced = true;
        Interlocked.Exchange(ref _viewChanged, new(TaskCreationOptions.RunContinuationsAsynchronously)).TrySetResult();
    }
}
