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
    private long _forwarded;
    private long _forwardFailures;
    private long _slotsHandedOff;
    private long _slotsReceived;
    private long _entriesHandedOff;

    public long Commands => Volatile.Read(ref _commands);

    public long Hits => Volatile.Read(ref _hits);

    public long Misses => Volatile.Read(ref _misses);

    public long ConnectionsReceived => Volatile.Read(ref _connectionsReceived);

    public long ProtocolErrors => Volatile.Read(ref _protocolErrors);

    public long RejectedConnections => Volatile.Read(ref _rejectedConnections);

    /// <summary>Calls sent to the silo that has their slot.</summary>
    public long ForwardedCalls => Volatile.Read(ref _forwarded);

    /// <summary>Forwards that found the peer unreachable (each retried until the forward timeout).</summary>
    public long ForwardFailures => Volatile.Read(ref _forwardFailures);

    public long SlotsHandedOff => Volatile.Read(ref _slotsHandedOff);

    public long SlotsReceived => Volatile.Read(ref _slotsReceived);

    public long EntriesHandedOff => Volatile.Read(ref _entriesHandedOff);

    public void Forwarded() => Interlocked.Increment(ref _forwarded);

    public void ForwardFailed() => Interlocked.Increment(ref _forwardFailures);

    public void HandedOff(long entries)
    {
        Interlocked.Increment(ref _slotsHandedOff);
        Interlocked.Add(ref _entriesHandedOff, entries);
    }

    public void SlotReceived() => Interlocked.Increment(ref _slotsReceived);

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
