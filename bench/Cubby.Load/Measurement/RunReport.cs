namespace Cubby.Load.Measurement;

/// <summary>Everything a run writes: its circumstances and a row per server and workload.</summary>
internal sealed record RunReport(RunInfo Info, IReadOnlyList<ResultRow> Rows)
{
    public ResultRow? Find(string workload, ServerKind server)
    {
        var name = server.ToString().ToLowerInvariant();
        return Rows.FirstOrDefault(r => r.Workload == workload && r.Server == name);
    }
}
