using StackExchange.Redis;

namespace Cubby.Load.Measurement;

/// <summary>
/// Reads a server's CPU time and memory from /proc, and Cubby's GC counters from <c>INFO gc</c>, around the measured
/// part of a workload.
/// </summary>
internal sealed class ServerProbe(ServerProcess server, ConnectionMultiplexer control)
{
    private double _cpuAtStart;
    private Dictionary<string, string>? _gcAtStart;

    public ServerKind Kind => server.Kind;

    public int Port => server.Port;

    public int GatewayPort => server.GatewayPort;

    public async Task BeginAsync()
    {
        _gcAtStart = await ReadGcAsync().ConfigureAwait(false);
        _cpuAtStart = server.CpuSeconds;
    }

    public async Task<(double CpuSeconds, long ResidentBytes, GcDelta? Gc)> EndAsync()
    {
        var cpu = server.CpuSeconds - _cpuAtStart;
        var resident = server.ResidentBytes;
        var gcAtEnd = await ReadGcAsync().ConfigureAwait(false);
        GcDelta? gc = null;
        if (_gcAtStart is not null && gcAtEnd is not null)
        {
            gc = new GcDelta(
                Delta("gc_gen0_collections"),
                Delta("gc_gen1_collections"),
                Delta("gc_gen2_collections"),
                Number(gcAtEnd, "gc_total_pause_ms") - Number(_gcAtStart, "gc_total_pause_ms"),
                Number(gcAtEnd, "gc_pause_max_ms"));
        }

        return (cpu, resident, gc);

        long Delta(string field) => (long)(Number(gcAtEnd!, field) - Number(_gcAtStart!, field));
    }

    private async Task<Dictionary<string, string>?> ReadGcAsync()
    {
        if (server.Kind != ServerKind.Cubby)
        {
            return null;
        }

        var fields = await InfoFields.ReadAsync(control.GetDatabase(), "gc").ConfigureAwait(false);
        return fields.ContainsKey("gc_gen0_collections") ? fields : null;
    }

    private static double Number(Dictionary<string, string> fields, string name) => InfoFields.Number(fields, name);
}
