namespace Cubby.Silo.Diagnostics;

/// <summary>Silo-wide counters reported by INFO.</summary>
internal sealed class SiloStatistics
{
    private long _commands;
    private long _hits;
    private long _misses;
    private long _connectionsReceived;
    private long _rejectedConnections;
    private long _protocolErrors;

    public long Commands => Volatile.Read(ref _commands);

    public long Hits => Volatile.Read(ref _hits);

    public long Misses => Volatile.Read(ref _misses);

    public long ConnectionsReceived => Volatile.Read(ref _connectionsReceived);

    public long ProtocolErrors => Volatile.Read(ref _protocolErrors);

    public long RejectedConnections => Volatile.Read(ref _rejectedConnections);

    public void AddCommands(long count) => Interlocked.Add(ref _commands, count);

    public void AddLookups(long hits, long misses)
    {
        if (hits != 0)
        {
            Interlocked.Add(ref _hits, hits);
        }

        if (misses != 0)
        {
            Interlocked.Add(ref _misses, misses);
        }
    }

    public void ConnectionReceived() => Interlocked.Increment(ref _connectionsReceived);

    public void ProtocolError() => Interlocked.Increment(ref _protocolErrors);

    public void ConnectionRejected() => Interlocked.Increment(ref _rejectedConnections);
}
