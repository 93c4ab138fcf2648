namespace Cubby.Client;

/// <summary>How a write elsewhere in the cluster reaches this client's near cache (<see cref="NearCacheOptions.Coherence"/>).</summary>
public enum NearCacheCoherence
{
    /// <summary>
    /// A write is answered only once this near cache has dropped the value it replaces, or its lease on it has run out:
    /// no read here begun after a write was answered returns the value before it. A write of a key kept here waits one
    /// round trip to this client longer.
    /// </summary>
    Strict,

    /// <summary>
    /// A write is answered while its invalidation is on its way here: a read begun after the write was answered may
    /// return the value before it until the invalidation arrives (the push delay, tens of microseconds on an idle
    /// network), and never later than <see cref="NearCacheOptions.MaxStaleness"/>. Writes do not wait for this client.
    /// </summary>
    Pushed,
}
