using Cubby.Cluster;
using Cubby.Silo.Cluster.Handoff;
using Cubby.Silo.Cluster.Membership;
using Cubby.Silo.Cluster.Slots;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Cluster;

/// <summary>
/// Turns membership into routing: joins the cluster once the listeners are up, builds a view from every table
/// change, works out which slots this silo gains (held at once, or awaited from their live previous owner) and which it
/// must hand off, tells RESP3 clients of the new view, and on shutdown leaves the view and hands every slot off
/// before the silo stops.
/// </summary>
internal sealed partial class ClusterCoordinator(
    SiloRuntime silo,
    IClusterMembership membership,
    HandoffSender handoff,
    IHostApplicationLifetime lifetime,
    ILogger<ClusterCoordinator> logger) : IHostedLifecycleService
{
    private ClusterView? _view;

    public Task StartingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>Joins once Kestrel listens, so the advertised port is the bound one.</summary>
    public async Task StartedAsync(CancellationToken cancellationToken)
    {
        membership.Changed += OnMembershipChanged;
        membership.Fenced += OnFenced;
        var (host, port) = AdvertisedEndpoint();
        await membership.JoinAsync(host, port, cancellationToken).ConfigureAwait(false);
        if (!silo.Cluster.IsStandalone)
        {
            handoff.Start();
        }

        Log.Joined(logger, membership.Self?.SiloId, silo.Options.ClusterId, silo.Options.Clustering.Mode);
    }

    /// <summary>Leaves the view and hands every slot off, before Kestrel stops taking calls.</summary>
    public async Task StoppingAsync(CancellationToken cancellationToken)
    {
        // A cluster of one has nobody to hand slots to or to send clients to.
        if (membership.Self is null || silo.Cluster.IsFenced || silo.Cluster.IsStandalone)
        {
            return;
        }

        var started = silo.Time.GetUtcNow();

        // Keep a margin of the shutdown timeout for Kestrel to finish the calls under way.
        var deadline = started + (silo.Options.ShutdownTimeout * 0.8);
        try
        {
            await membership.LeaveAsync(cancellationToken).ConfigureAwait(false);
            await WaitForSlotsToLeaveAsync(deadline, cancellationToken).ConfigureAwait(false);
            var left = silo.Cluster.Slots.Count(SlotState.Held) + silo.Cluster.Slots.Count(SlotState.Frozen);
            Log.HandedOff(logger, silo.Statistics.SlotsHandedOff, (silo.Time.GetUtcNow() - started).TotalMilliseconds, left);
            await membership.CompleteLeaveAsync(cancellationToken).ConfigureAwait(false);
            await DrainClientsAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            Log.LeaveFailed(logger, exception);
        }
    }

    public Task StopAsync(CancellationToken cancellationToken) => handoff.StopAsync();

    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    private (string Host, int Port) AdvertisedEndpoint()
    {
        var options = silo.Options;
        var host = options.AdvertisedHost ?? options.Host switch
        {
            "localhost" => "127.0.0.1",
            "*" => Environment.MachineName,
            _ => options.Host,
        };
        return (host, silo.Endpoints.Resp.Port);
    }

    private void OnMembershipChanged(MembershipSnapshot snapshot)
    {
        if (membership.Self is not { } self)
        {
            return;
        }

        lock (silo.Cluster.Transitions)
        {
            var active = snapshot.Entries
                .Select(row => row.Entry)
                .Where(entry => entry.Status == SiloStatus.Active)
                .Select(entry => new SiloEndpoint(entry.SiloId, entry.Host, entry.Port))
                .ToArray();
            if (active.Length == 0)
            {
                // The last silo leaving: nobody to hand off to.
                silo.Cluster.PublishMembers(snapshot);
                return;
            }

            var view = new ClusterView(snapshot.Version, silo.Options.SlotCount, active);
            var live = snapshot.Entries.Where(row => row.Entry.Status != SiloStatus.Dead).Select(row => row.Entry.SiloId).ToHashSet(StringComparer.Ordinal);
            var previous = _view ?? ViewWithout(view, self.SiloId);
            Reassign(self.SiloId, previous, view, live);
            _view = view;
            silo.Cluster.Publish(self.SiloId, snapshot, view);
            Log.ViewChanged(logger, view.Version, view.Silos.Count, ClusterState.CountOwnedSlots(view).GetValueOrDefault(self.SiloId));
        }

        DropLinksToDeadSilos(snapshot);
        foreach (var client in silo.Clients.All)
        {
            if (client.WantsViewPushes)
            {
                client.Wake();
            }
        }

        handoff.Signal();
    }

    /// <summary>
    /// Closes the links to dead silos so they stop reconnecting, unless a live member (a restart) took the endpoint over.
    /// </summary>
    private void DropLinksToDeadSilos(MembershipSnapshot snapshot)
    {
        var inUse = snapshot.Entries
            .Where(row => row.Entry.Status != SiloStatus.Dead)
            .Select(row => (row.Entry.Host, row.Entry.Port))
            .ToHashSet();
        foreach (var row in snapshot.Entries)
        {
            if (row.Entry.Status == SiloStatus.Dead && !inUse.Contains((row.Entry.Host, row.Entry.Port)))
            {
                silo.Links.Drop(row.Entry.Host, row.Entry.Port);
            }
        }
    }

    /// <summary>Moves each slot's state from the previous view to the new one.</summary>
    private void Reassign(string self, ClusterView? previous, ClusterView view, HashSet<string> live)
    {
        var slots = silo.Cluster.Slots;
        for (var slot = 0; slot < view.SlotCount; slot++)
        {
            var owner = view.OwnerOf(slot).Id;
            var state = slots[slot];
            if (owner == self)
            {
                if (state == SlotState.Awaiting && !live.Contains(slots.AwaitedFrom(slot) ?? string.Empty))
                {
                    // The silo we awaited the data from died: the slot starts empty here.
                    silo.Incoming.Abandon(slot);
                    slots.Set(slot, SlotState.Held);
                }
                else if (state is SlotState.Remote or SlotState.Unassigned)
                {
                    var from = previous?.OwnerOf(slot).Id;
                    if (from is not null && from != self && live.Contains(from))
                    {
                        slots.Set(slot, SlotState.Awaiting, from);
                    }
                    else
                    {
                        slots.Set(slot, SlotState.Held);
                    }
                }
            }
            else if (state is SlotState.Awaiting or SlotState.Unassigned)
            {
                // Whoever has the data now hands it to the new owner directly.
                slots.Set(slot, SlotState.Remote);
            }
        }
    }

    private static ClusterView? ViewWithout(ClusterView view, string siloId)
    {
        var others = view.Silos.Where(s => s.Id != siloId).ToArray();
        return others.Length == 0 ? null : new ClusterView(view.Version - 1, view.SlotCount, others);
    }

    private async Task WaitForSlotsToLeaveAsync(DateTimeOffset deadline, CancellationToken cancellationToken)
    {
        var slots = silo.Cluster.Slots;
        while (slots.Count(SlotState.Held) + slots.Count(SlotState.Frozen) > 0 && silo.Cluster.View?.Silos.Count > 0 && !IsOnlySilo())
        {
            var remaining = deadline - silo.Time.GetUtcNow();
            if (remaining <= TimeSpan.Zero)
            {
                return;
            }

            try
            {
                await slots.Changed.WaitAsync(TimeSpan.FromMilliseconds(Math.Min(remaining.TotalMilliseconds, 250)), silo.Time, cancellationToken).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                // Check again: handoffs retry on their own schedule.
            }
        }
    }

    private bool IsOnlySilo() => silo.Cluster.View is { } view && view.Silos.All(s => s.Id == silo.Cluster.SelfId);

    /// <summary>
    /// Gives clients that were told of the new view a moment to move their calls to the new owners, so that closing
    /// the connections cuts no call off: until every connection has been quiet for a short while, or two seconds.
    /// </summary>
    private async Task DrainClientsAsync(CancellationToken cancellationToken)
    {
        var quiet = TimeSpan.FromMilliseconds(250);
        var deadline = silo.Time.GetUtcNow() + TimeSpan.FromSeconds(2);
        while (silo.Time.GetUtcNow() < deadline)
        {
            var now = silo.Time.GetUtcNow();
            if (silo.Clients.All.All(client => client.IsClusterPeer || now - client.LastActivity >= quiet))
            {
                return;
            }

            await Task.Delay(TimeSpan.FromMilliseconds(50), silo.Time, cancellationToken).ConfigureAwait(false);
        }
    }

    private void OnFenced()
    {
        Log.Fenced(logger, membership.Self?.SiloId);
        silo.Cluster.Fence();
        Routing.LocalKeyspace.Flush(silo);
        Environment.ExitCode = 3;
        lifetime.StopApplication();
    }

    private static partial class Log
    {
        [LoggerMessage(1, LogLevel.Information, "Joined cluster {ClusterId} as {SiloId} ({Mode} membership)")]
        public static partial void Joined(ILogger logger, string? siloId, string clusterId, ClusteringMode mode);

        [LoggerMessage(2, LogLevel.Information, "View {Version}: {Silos} silos, {Owned} slots owned here")]
        public static partial void ViewChanged(ILogger logger, long version, int silos, int owned);

        [LoggerMessage(3, LogLevel.Information, "Left the cluster: {Slots} slots handed off in {Milliseconds:0} ms, {Left} left behind")]
        public static partial void HandedOff(ILogger logger, long slots, double milliseconds, int left);

        [LoggerMessage(4, LogLevel.Error, "Leaving the cluster failed")]
        public static partial void LeaveFailed(ILogger logger, Exception exception);

        [LoggerMessage(5, LogLevel.Critical, "Silo {SiloId} was declared dead by its cluster: it stops serving and exits")]
        public static partial void Fenced(ILogger logger, string? siloId);
    }
}
