namespace Cubby.Client;

/// <summary>
/// The client's near cache (<c>Cubby:Client:NearCache</c>): values it read kept in this process and served from here,
/// until the silo that ran the read says the key changed. Off by default.
/// </summary>
/// <remarks>
/// A kept value is dropped when its key is written, removed, expires or is evicted on the silo, when its shard is
/// flushed or moves, when the silo that tracked the read leaves, and when this client writes or removes the key itself.
/// It is never served longer than <see cref="MaxStaleness"/> past a change the silo could not tell this client of.
/// Needs the gateway client with <see cref="CubbyClientOptions.CoalesceCalls"/> on: reads are tracked by the silo
/// that runs them in a batch.
/// </remarks>
public sealed class NearCacheOptions
{
    /// <summary>The default of <see cref="UpdateMaxBytes"/>.</summary>
    internal const int DefaultUpdateMaxBytes = 8 * 1024;

    /// <summary>The most <see cref="UpdateMaxBytes"/> may be.</summary>
    internal const int MostUpdateMaxBytes = 1024 * 1024;

    /// <summary>Whether reads are kept and served in this process.</summary>
    public bool Enabled { get; set; }

    /// <summary>
    /// The most bytes of values (with their keys) kept; past it, the least recently used go first. 64 MiB by default.
    /// </summary>
    public long MaxBytes { get; set; } = 64L * 1024 * 1024;

    /// <summary>
    /// The longest a kept value is served after a change the client was not told of (a lost push, a stalled connection):
    /// each silo's lease on what was read through it must be renewed within this, which the client does four times
    /// per period. 1 s by default; at least 100 ms.
    /// </summary>
    public TimeSpan MaxStaleness { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// The largest value, in bytes as stored (compressed when it is), that a change of a key this cache holds brings with
    /// it, replacing the kept value so the next read stays local; larger values are dropped and read again. 8 KiB by
    /// default; 0 drops every changed key; at most 1 MiB.
    /// </summary>
    public int UpdateMaxBytes { get; set; } = DefaultUpdateMaxBytes;

    /// <summary>
    /// Whether writes anywhere wait for this near cache to drop what they replace (<see cref="NearCacheCoherence.Strict"/>,
    /// the default) or only push it the change (<see cref="NearCacheCoherence.Pushed"/>).
    /// </summary>
    public NearCacheCoherence Coherence { get; set; } = NearCacheCoherence.Strict;
}
