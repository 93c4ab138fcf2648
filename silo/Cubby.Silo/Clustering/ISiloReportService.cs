using Orleans.Services;

namespace Cubby.Silo.Clustering;

/// <summary>
/// What one silo tells the others about itself (an Orleans grain service, one per silo): where its RESP front door
/// listens and what it holds, for <c>CUBBY.OWNER</c>, <c>INFO cluster</c>, <c>/cluster</c> and the dashboard.
/// </summary>
[Alias("cubby.silo-report")]
internal interface ISiloReportService : IGrainService
{
    /// <summary>The silo's RESP endpoint and counts.</summary>
    [Alias("describe")]
    Task<SiloCard> Describe();

    /// <summary>The dashboard's <see cref="Dashboard.SiloStats"/> of the silo with its last <paramref name="seconds"/> of series, as JSON.</summary>
    [Alias("stats")]
    Task<byte[]> Stats(int seconds);
}

/// <summary>One silo as it describes itself.</summary>
/// <param name="RespEndpoint">Its RESP front door, <c>host:port</c>; empty when it hosts shards without one.</param>
/// <param name="Entries">Entries held by its shards.</param>
/// <param name="Shards">Shards active on it.</param>
[GenerateSerializer]
[Alias("cubby.silo-card")]
internal sealed record SiloCard([property: Id(0)] string RespEndpoint, [property: Id(1)] long Entries, [property: Id(2)] int Shards);
