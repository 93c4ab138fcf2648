using System.Text.Json;
using Cubby.Grains;
using Cubby.Silo.Dashboard;
using Cubby.Silo.Hosting;
using Orleans.Runtime.Services;

namespace Cubby.Silo.Clustering;

/// <summary>Answers <see cref="ISiloReportService"/> for this silo.</summary>
internal sealed class SiloReportService(GrainId id, global::Orleans.Runtime.Silo silo, ILoggerFactory loggers, IServiceProvider services)
    : GrainService(id, silo, loggers), ISiloReportService
{
    public Task<byte[]> Stats(int seconds)
    {
        var runtime = services.GetRequiredService<SiloRuntime>();
        return Task.FromResult(JsonSerializer.SerializeToUtf8Bytes(SiloStats.Of(runtime, Math.Clamp(seconds, 0, SiloStats.MaxSeconds)), DashboardJson.Default.SiloStats));
    }
}

/// <summary>Reaches the <see cref="ISiloReportService"/> of a given silo.</summary>
internal sealed class SiloReports(IServiceProvider services) : GrainServiceClient<ISiloReportService>(services)
{
    public ISiloReportService Of(SiloAddress silo) => GetGrainService(silo);
}
