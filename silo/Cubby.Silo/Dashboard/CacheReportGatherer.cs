using System.Text.Json;
using Cubby.Silo.Clustering;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Dashboard;

/// <summary>
/// Builds the <see cref="CacheReport"/>: this silo's own figures and each other live member's, asked through its
/// <see cref="Grains.Reports.ShardSilos"/> and <see cref="ISiloReportService"/>, then the silos declared dead
/// of late. A silo that does not answer within <see cref="PeerTimeout"/> is shown as unreachable rather than holding
/// the page up.
/// </summary>
internal sealed class CacheReportGatherer(SiloRuntime silo, RecentDeaths deaths)
{
    public static readonly TimeSpan PeerTimeout = TimeSpan.FromSeconds(1);

    public async Task<CacheReport> GatherAsync(int seconds)
    {
        // One snapshot decides each silo's one row: live (asked for its figures), or recently dead.
        var members = silo.Membership.CurrentSnapshot.Members.Values.OrderBy(static member => member.SiloAddress).ToList();
        var live = members.Where(static member => member.Status is SiloStatus.Active or SiloStatus.ShuttingDown or SiloStatus.Stopping);
        var rows = await Task.WhenAll(live.Select(member => DescribeAsync(member, seconds))).ConfigureAwait(false);
        var dead = new List<CacheSilo>();
        foreach (var member in members.Where(static member => member.Status == SiloStatus.Dead))
        {
            if (deaths.TryGetRecent(member.SiloAddress, out var declaredAt))
            {
                dead.Add(new CacheSilo(member.SiloAddress.ToParsableString(), "", nameof(SiloStatus.Dead), 0, IsSelf: false, Reachable: false, null) { DeclaredDeadAt = declaredAt });
            }
        }

        return new CacheReport(silo.Options.ClusterId, silo.Self.ToParsableString(), silo.Options.SlotCount, silo.Time.GetUtcNow(), [.. rows, .. dead.OrderByDescending(static row => row.DeclaredDeadAt)]);
    }

    private async Task<CacheSilo> DescribeAsync(ClusterMember member, int seconds)
    {
        var address = member.SiloAddress;
        var status = member.Status.ToString();
        if (address.Equals(silo.Self))
        {
            return new CacheSilo(address.ToParsableString(), silo.RespEndpoint, status, silo.Figures.ActiveShards, IsSelf: true, Reachable: true, SiloStats.Of(silo, seconds));
        }

        try
        {
            var card = silo.ShardSilos.DescribeAsync(address).WaitAsync(PeerTimeout);
            var stats = silo.Reports.Of(address).Stats(seconds).WaitAsync(PeerTimeout);
            var (answer, figures) = (await card.ConfigureAwait(false), JsonSerializer.Deserialize(await stats.ConfigureAwait(false), DashboardJson.Default.SiloStats));
            return new CacheSilo(address.ToParsableString(), answer.RespEndpoint, status, answer.Shards, IsSelf: false, Reachable: true, figures);
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            return new CacheSilo(address.ToParsableString(), address.Endpoint.ToString(), status, 0, IsSelf: false, Reachable: false, null);
        }
    }
}
