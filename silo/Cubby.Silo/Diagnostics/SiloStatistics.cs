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
    private long _relayed;
    private long _relayRetries;

    public long Commands => Volatile.Read(ref _commands);

    public long Hits => Volatile.Read(ref _hits);

    public long Misses => Volatile.Read(ref _misses);

    public long ConnectionsReceived => Volatile.Read(ref _connectionsReceived);

    public long ProtocolErrors => Volatile.Read(ref _protocolErrors);

    public long RejectedConnections => Volatile.Read(ref _rejectedConnections);

    /// <summary>Commands sent through Orleans to a shard active on another silo, or moving.</summary>
    public long RelayedCalls => Volatile.Read(ref _relayed);

    /// <summary>Relayed calls tried again because their shard was moving or its silo unreachable.</summary>
    public long RelayRetries => Volatile.Read(ref _relayRetries);

    public void Relayed() => Interlocked.Increment(ref _relayed);

    public void RelayRetried() => Interlocked.Increment(ref _relayRetries);

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
