using System.Globalization;
using System.Text;
using Cubby.Resp;
using Cubby.Silo.Cluster.Membership;
using Cubby.Silo.Cluster.Routing;
using Cubby.Silo.Cluster.Slots;
using Cubby.Silo.Hosting;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Cluster;

/// <summary>What operators see of the cluster (INFO cluster, <c>GET /cluster</c>): the view, every member, its slots and entries.</summary>
internal sealed record ClusterReport(
    string ClusterId,
    string Mode,
    string? SelfId,
    long ViewVersion,
    int SlotCount,
    IReadOnlyList<SiloReport> Silos,
    SlotCounts LocalSlots,
    long ForwardedCalls,
    long SlotsHandedOff,
    long SlotsReceived)
{
    /// <summary>Gathers the report; each live peer is asked for its entry count (null when it does not answer).</summary>
    public static async Task<ClusterReport> GatherAsync(SiloRuntime silo, ClientSession? asker)
    {
        var cluster = silo.Cluster;
        var view = cluster.View;
        var owned = ClusterState.CountOwnedSlots(view);

        var rows = cluster.Members?.Entries.Select(row => row.Entry).ToList() ?? [];
        var entries = await Task.WhenAll(rows.Select(row => CountEntriesAsync(silo, asker, row))).ConfigureAwait(false);
        var silos = rows.Select((row, i) => new SiloReport(
            row.SiloId, row.Host, row.Port, row.Status.ToString(), row.Generation, owned.GetValueOrDefault(row.SiloId), entries[i], row.IAmAliveAt)).ToList();
        var slots = cluster.Slots;
        return new ClusterReport(
            silo.Options.ClusterId,
            silo.Options.Clustering.Mode.ToString(),
            cluster.SelfId,
            view?.Version ?? 0,
            silo.Options.SlotCount,
            silos,
            new SlotCounts(slots.Count(SlotState.Held), slots.Count(SlotState.Awaiting), slots.Count(SlotState.Frozen), slots.Count(SlotState.Remote)),
            silo.Statistics.ForwardedCalls,
            silo.Statistics.SlotsHandedOff,
            silo.Statistics.SlotsReceived);
    }

    /// <summary>The INFO <c># Cluster</c> section. <c>cluster_enabled</c> stays 0: plain Redis clients must not switch to Redis Cluster mode.</summary>
    public void AppendInfo(StringBuilder text)
    {
        text.Append("# Cluster\r\ncluster_enabled:0\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_cluster_id:{ClusterId}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_clustering_mode:{Mode}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_silo_id:{SelfId}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_view_version:{ViewVersion}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_view_silos:{Silos.Count(s => s.Status == nameof(SiloStatus.Active))}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_slot_count:{SlotCount}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_slots_held:{LocalSlots.Held}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_slots_awaiting:{LocalSlots.Awaiting}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_slots_frozen:{LocalSlots.Frozen}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_forwarded_calls:{ForwardedCalls}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_slots_handed_off:{SlotsHandedOff}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_slots_received:{SlotsReceived}\r\n");
        for (var i = 0; i < Silos.Count; i++)
        {
            var s = Silos[i];
            text.Append(CultureInfo.InvariantCulture, $"silo{i}:id={s.Id},host={s.Host},port={s.Port},status={s.Status},generation={s.Generation},slots={s.Slots},keys={s.Entries?.ToString(CultureInfo.InvariantCulture) ?? "?"}\r\n");
        }

        text.Append("\r\n");
    }

    private static async Task<long?> CountEntriesAsync(SiloRuntime silo, ClientSession? asker, MembershipEntry row)
    {
        if (row.SiloId == silo.Cluster.SelfId)
        {
            return silo.Catalog.Count();
        }

        if (row.Status == SiloStatus.Dead)
        {
            return null;
        }

        using var request = new RespRequest();
        request.Append("CUBBY.LOCAL"u8);
        request.Append("DBSIZE"u8);
        var reply = await Forwarder.TryForwardAsync(silo, request, null, new Cubby.Cluster.SiloEndpoint(row.SiloId, row.Host, row.Port), RespVersion.Resp2, asker?.Hops ?? 0).ConfigureAwait(false);
        using (reply)
        {
            return reply is { } r && RawReplies.TryReadInteger(r.Span, out var count) ? count : null;
        }
    }
}

/// <summary>One member as the report shows it.</summary>
internal sealed record SiloReport(string Id, string Host, int Port, string Status, long Generation, int Slots, long? Entries, DateTimeOffset LastHeartbeat);

/// <summary>This silo's slots by state.</summary>
internal sealed record SlotCounts(int Held, int Awaiting, int Frozen, int Remote);
