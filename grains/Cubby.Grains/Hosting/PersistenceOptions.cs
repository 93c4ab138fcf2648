namespace Cubby.Grains.Hosting;

/// <summary>
/// Keeping the shards a silo holds on disk, so a cluster stopped whole starts again with its entries
/// (<c>Cubby:Persistence</c>). Off unless <see cref="Directory"/> is set. Design: <c>docs/persistence.md</c>.
/// </summary>
public sealed class PersistenceOptions
{
    /// <summary>
    /// The folder this silo keeps its shards in (made when missing). Unset, the default: nothing is written or read.
    /// As it stops, the silo writes each shard it still holds there; as it starts, it loads what it finds there before
    /// it serves, and each shard resumes from the newest copy any silo holds.
    /// </summary>
    public string? Directory { get; set; }

    /// <summary>
    /// How often what the shards changed reaches the disk (its changes file): a crash or a power cut loses nothing
    /// appended longer ago than this. Zero: every write waits for its change to be on the disk before it is answered.
    /// </summary>
    public TimeSpan FlushInterval { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// How large the changes file grows before the silo begins a new one: it then writes every shard it holds whole, and
    /// deletes the older file, which holds nothing more. It waits too until the file is larger than the shards written
    /// when it began, as Redis rewrites its AOF once it has grown by 100 % and past 64 MiB.
    /// </summary>
    public long ChangesFileMinBytes { get; set; } = 64L * 1024 * 1024;

    /// <summary>Whether shards are kept on disk.</summary>
    internal bool Enabled => !string.IsNullOrEmpty(Directory);
}
