using System.Text.Json;
using Cubby.Silo.Clustering;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Dashboard;

/// <summary>
/// Builds the <see cref="DashboardReport"/>: Orleans' membership table (dead silos included), this silo's own stats,
/// and each live peer's, asked through its <see cref="ISiloReportService"/>. A peer that does not answer within
/// <see cref="PeerTimeout"/> is shown as unreachable rather than holding the page up.
/// </summary>
internal sealed class DashboardGatherer(SiloRuntime silo, IMembershipTable table, MembershipEventLog events)
{
    public static readonly TimeSpan PeerTimeout = TimeSpan.FromSeconds(1);

    // A silo that stopped answering (dead, or unreachable) is still shown at the RESP endpoint it last reported.
    private readonly System.Collections.Concurrent.ConcurrentDictionary<SiloAddress, string> _respEndpoints = new();

    public async Task<DashboardReport> GatherAsync(int seconds, CancellationToken cancellationToken)
    {
        var data = await table.ReadAllAsync(cancellationToken).ConfigureAwait(false);
        var rows = data.Members.Select(static row => row.Item1).OrderBy(static row => row.SiloAddress).ToList();
        var answers = await Task.WhenAll(rows.Select(row => AskAsync(row, seconds))).ConfigureAwait(false);
        var silos = rows.Select((row, i) => new DashboardSilo(
            row.SiloAddress.ToParsableString(),
            RespEndpointOf(row.SiloAddress, answers[i].Card),
            row.Status.ToString(),
            row.SiloAddress.Generation,
            answers[i].Card?.Shards ?? 0,
            row.SiloAddress.Equals(silo.Self),
            answers[i].Stats is not null,
            row.IAmAliveTime,
            answers[i].Stats)).ToList();
        return new DashboardReport(
            silo.Options.ClusterId,
            silo.Options.Clustering.Mode.ToString(),
            silo.Self.ToParsableString(),
            data.Version.Version,
            silo.Options.SlotCount,
            silo.Time.GetUtcNow(),
            silos,
            events.Latest());
    }

    private string RespEndpointOf(SiloAddress silo, SiloCard? card) =>
        card is { RespEndpoint.Length: > 0 } ? _respEndpoints[silo] = card.RespEndpoint
        : _respEndpoints.TryGetValue(silo, out var known) ? known : silo.Endpoint.ToString();

    private async Task<(SiloCard? Card, SiloStats? Stats)> AskAsync(MembershipEntry row, int seconds)
    {
        if (row.SiloAddress.Equals(silo.Self))
        {
            return (new SiloCard(silo.RespEndpoint, silo.Catalog.Count(), silo.Catalog.ActiveShards()), SiloStats.Of(silo, seconds));
        }

        if (row.Status is not (SiloStatus.Active or SiloStatus.ShuttingDown or SiloStatus.Stopping))
        {
            return (null, null);
        }

        try
        {
            var service = silo.Reports.Of(row.SiloAddress);
            var card = service.Describe().WaitAsync(PeerTimeout);
            var stats = service.Stats(seconds).WaitAsync(PeerTimeout);
            return (await card.ConfigureAwait(false), JsonSerializer.Deserialize(await stats.ConfigureAwait(false), DashboardJson.Default.SiloStats));
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            return (null, null);
        }
    }
}
