using Orleans.Services;

namespace Cubby.Silo.Clustering;

/// <summary>
/// The dashboard's numbers one Cubby silo gives the others (an Orleans grain service, one per silo). What every silo
/// holding shards says of itself is the grain layer's <see cref="Grains.Reports.ShardSilos"/>.
/// </summary>
[Alias("cubby.silo-report")]
internal interface ISiloReportService : IGrainService
{
    /// <summary>The dashboard's <see cref="Dashboard.SiloStats"/> of the silo with its last <paramref name="seconds"/> of series, as JSON.</summary>
    [Alias("stats")]
    Task<byte[]> Stats(int seconds);
}
