using Orleans.Services;

namespace Cubby.Grains.Reports;

/// <summary>
/// What a silo holding shards tells the others about itself (an Orleans grain service on every silo that calls
/// <c>AddCubby</c>, Cubby's own or a plain Orleans host): where its RESP front door listens and what it holds, for
/// <c>INFO cluster</c>, <c>/cluster</c> and the dashboard.
/// </summary>
[Alias("cubby.shard-silo")]
internal interface IShardSiloService : IGrainService
{
    /// <summary>The silo's RESP endpoint and counts.</summary>
    [Alias("describe")]
    Task<SiloCard> Describe();
}

/// <summary>One silo as it describes itself.</summary>
/// <param name="RespEndpoint">Its RESP front door, <c>host:port</c>; empty when it hosts shards without one.</param>
/// <param name="Entries">Entries held by its shards.</param>
/// <param name="Shards">Shards active on it.</param>
[GenerateSerializer]
[Alias("cubby.silo-card")]
public sealed record SiloCard([property: Id(0)] string RespEndpoint, [property: Id(1)] long Entries, [property: Id(2)] int Shards);
