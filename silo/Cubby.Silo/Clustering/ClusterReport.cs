using System.Globalization;
using System.Text;
using Cubby.Grains.Reports;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Clustering;

/// <summary>What operators see of the cluster (INFO cluster, <c>GET /cluster</c>): Orleans' members, each one's shards and entries.</summary>
internal sealed record ClusterReport(
    string ClusterId,
    string Mode,
    string Self,
    int SlotCount,
    IReadOnlyList<SiloReport> Silos,
    int LocalShards,
    int LocalReplicas,
    long RelayedCalls,
    long ShardsMigratedOut,
    long ShardsMigratedIn)
{
    /// <summary>How long a silo may take to describe itself before it is shown without its numbers.</summary>
    public static readonly TimeSpan SiloTimeout = TimeSpan.FromSeconds(1);

    /// <summary>Gathers the report; each live silo describes itself (null numbers when it does not answer in time).</summary>
    public static async Task<ClusterReport> GatherAsync(SiloRuntime silo)
    {
        var members = silo.Membership.CurrentSnapshot.Members.Values.OrderBy(static member => member.SiloAddress).ToList();
        var cards = await Task.WhenAll(members.Select(member => DescribeAsync(silo, member))).ConfigureAwait(false);
        var silos = members.Select((member, i) => new SiloReport(
            member.SiloAddress.ToParsableString(), member.Name, member.Status.ToString(), cards[i]?.RespEndpoint, cards[i]?.Shards, cards[i]?.Entries)).ToList();
        return new ClusterReport(
            silo.Options.ClusterId,
            silo.Options.Clustering.Mode.ToString(),
            silo.Self.ToParsableString(),
            silo.Options.SlotCount,
            silos,
            silo.Figures.ActiveShards,
            silo.Figures.ReplicasHere,
            silo.Statistics.RelayedCalls,
            silo.Figures.ShardsMigrated.Sent,
            silo.Figures.ShardsMigrated.Received);
    }

    /// <summary>The INFO <c># Cluster</c> section. <c>cluster_enabled</c> stays 0: plain Redis clients must not switch to Redis Cluster mode.</summary>
    public void AppendInfo(StringBuilder text)
    {
        text.Append("# Cluster\r\ncluster_enabled:0\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_cluster_id:{ClusterId}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_clustering_mode:{Mode}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_silo:{Self}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_active_silos:{Silos.Count(static s => s.Status == nameof(SiloStatus.Active))}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_slot_count:{SlotCount}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_shards_here:{LocalShards}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_replicas_here:{LocalReplicas}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_relayed_calls:{RelayedCalls}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_shards_migrated_out:{ShardsMigratedOut}\r\n")
            .Append(CultureInfo.InvariantCulture, $"cubby_shards_migrated_in:{ShardsMigratedIn}\r\n");
        for (var i = 0; i < Silos.Count; i++)
        {
            var s = Silos[i];
            text.Append(CultureInfo.InvariantCulture,
                $"silo{i}:address={s.Address},name={s.Name},status={s.Status},resp={s.RespEndpoint ?? "?"},shards={s.Shards?.ToString(CultureInfo.InvariantCulture) ?? "?"},keys={s.Entries?.ToString(CultureInfo.InvariantCulture) ?? "?"}\r\n");
        }

        text.Append("\r\n");
    }

    private static async Task<SiloCard?> DescribeAsync(SiloRuntime silo, ClusterMember member)
    {
        if (member.Status != SiloStatus.Active && member.Status != SiloStatus.ShuttingDown)
        {
            return null;
        }

        try
        {
            return await silo.ShardSilos.DescribeAsync(member.SiloAddress).WaitAsync(SiloTimeout).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            return null;
        }
    }
}

/// <summary>One member as the report shows it.</summary>
/// <param name="Address">Its Orleans silo address.</param>
/// <param name="Name">Its Orleans silo name.</param>
/// <param name="Status">Joining, Active, ShuttingDown, Stopping or Dead.</param>
/// <param name="RespEndpoint">Its RESP front door; null when it did not answer.</param>
/// <param name="Shards">Shards active on it; null when it did not answer.</param>
/// <param name="Entries">Entries it holds; null when it did not answer.</param>
internal sealed record SiloReport(string Address, string Name, string Status, string? RespEndpoint, int? Shards, long? Entries);
