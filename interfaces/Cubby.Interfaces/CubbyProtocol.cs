namespace Cubby;

/// <summary>
/// Cubby's own RESP commands and the shape of their replies; the contract between clients and silos.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item><c>CUBBY.GET key</c>: a null reply when the key is absent, else an array of three:
/// the value, its <see cref="CacheEntryFlags"/>, and its time to live in milliseconds (-1 without expiry).
/// A sliding entry is renewed in the same turn as the read.</item>
/// <item><c>CUBBY.SET key value [PXAT ms] [SLIDE ms] [FLAGS n] [NX|XX]</c>: an integer <see cref="WriteOutcome"/>.
/// <c>PXAT</c> is an absolute Unix time in milliseconds; <c>SLIDE</c> a sliding window in milliseconds, never renewed past <c>PXAT</c>.</item>
/// <item><c>CUBBY.REFRESH key</c>: 1 when the entry exists (its sliding window renewed), 0 when it does not.</item>
/// <item><c>CUBBY.OWNER key</c>: an array of two: the key's shard and the RESP endpoint (<c>host:port</c>) of the
/// silo where that shard is active.</item>
/// </list>
/// </remarks>
public static class CubbyProtocol
{
    /// <summary>The RESP port a silo listens on unless configured otherwise.</summary>
    public const int DefaultRespPort = 6390;

    /// <summary>The HTTP port (health, metrics) a silo listens on unless configured otherwise.</summary>
    public const int DefaultHttpPort = 8390;

    /// <summary>Reads an entry with its flags and time to live, renewing a sliding expiry.</summary>
    public const string Get = "CUBBY.GET";

    /// <summary>Writes an entry with absolute and/or sliding expiry, flags and an optional condition.</summary>
    public const string Set = "CUBBY.SET";

    /// <summary>Renews an entry's sliding expiry without reading its value.</summary>
    public const string Refresh = "CUBBY.REFRESH";

    /// <summary>Tells which shard a key is in and where that shard is active.</summary>
    public const string Owner = "CUBBY.OWNER";
}
