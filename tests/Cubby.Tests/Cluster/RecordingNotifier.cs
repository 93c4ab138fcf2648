using System.Collections.Concurrent;
using Cubby.Silo.Cluster.Membership;

namespace Cubby.Tests.Cluster;

/// <summary>Remembers whom a membership service told that the table changed.</summary>
internal sealed class RecordingNotifier : IMembershipNotifier
{
    public ConcurrentQueue<string> Notified { get; } = new();

    public void NotifyChanged(IEnumerable<MembershipEntry> peers)
    {
        foreach (var peer in peers)
        {
            Notified.Enqueue(peer.SiloId);
        }
    }
}
