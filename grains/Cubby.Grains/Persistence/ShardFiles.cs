using Cubby.Diagnostics;
using Cubby.Grains.Hosting;
using Cubby.Grains.Replication;
using Microsoft.Extensions.Logging;
using Orleans.Runtime;

namespace Cubby.Grains.Persistence;

/// <summary>
/// This silo's shards in its persistence folder (<see cref="PersistenceOptions"/>): one snapshot file per shard, written
/// as the silo stops with each shard it still holds, and loaded as it starts, before it serves, as frozen copies
/// (<see cref="ShardReplicas.KeepStored"/>) that each shard resumes from wherever it activates, unless a silo holds a
/// newer one. A folder that cannot be written costs the entries' survival, never the silo: the failure is logged with
/// the folder's name and the entries stay in memory. Design: <c>docs/persistence.md</c>.
/// </summary>
internal sealed partial class ShardFiles(ShardCatalog catalog, ShardReplicas replicas, TimeProvider time, ILogger<ShardFiles> logger)
    : ILifecycleParticipant<ISiloLifecycle>
{
    private const string Suffix = ".snapshot";

    private readonly string? _folder = catalog.Options.Persistence.Enabled ? Path.GetFullPath(catalog.Options.Persistence.Directory!) : null;

    private int _shardsLoaded;
    private long _entriesLoaded;
    private int _filesUnreadable;
    private long _loadMilliseconds;
    private int _shardsNotSaved;

    /// <summary>Whether shards are kept on disk.</summary>
    public bool Enabled => _folder is not null;

    /// <summary>The folder, as a full path; null when shards are not kept on disk.</summary>
    public string? Folder => _folder;

    /// <summary>What this silo loaded as it started: shards, their entries, files passed over, and how long it took.</summary>
    public (int Shards, long Entries, int Unreadable, long Milliseconds) Loaded =>
        (Volatile.Read(ref _shardsLoaded), Volatile.Read(ref _entriesLoaded), Volatile.Read(ref _filesUnreadable), Volatile.Read(ref _loadMilliseconds));

    /// <summary>Shards this silo could not write to its folder since it started.</summary>
    public int ShardsNotSaved => Volatile.Read(ref _shardsNotSaved);

    /// <summary>Writes <paramref name="shard"/>, the primary of <paramref name="slot"/> at <paramref name="epoch"/>, replacing its file; false when it could not.</summary>
    public async Task<bool> SaveAsync(int slot, long epoch, Shard shard)
    {
        if (_folder is null)
        {
            return false;
        }

        var snapshot = await shard.SnapshotAsync(ShardGrain.MigrationChunkBytes).ConfigureAwait(false);
        try
        {
            Directory.CreateDirectory(_folder);
            ShardSnapshotFile.Write(PathOf(slot), slot, new ShardFileStamp(epoch, snapshot.Sequence, time.GetUtcNow().ToUnixTimeMilliseconds()), snapshot.Chunks);
            return true;
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            Interlocked.Increment(ref _shardsNotSaved);
            LogNotSaved(logger, exception, slot, _folder);
            return false;
        }
    }

    /// <summary>Removes the file of <paramref name="slot"/>: the shard left this silo with its entries, and its file leaves with it.</summary>
    public void Forget(int slot)
    {
        if (_folder is null)
        {
            return;
        }

        try
        {
            File.Delete(PathOf(slot));
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            // Left behind, it is an older copy than the shard's new home holds, and never the one resumed from.
            LogNotSaved(logger, exception, slot, _folder);
        }
    }

    void ILifecycleParticipant<ISiloLifecycle>.Participate(ISiloLifecycle lifecycle)
    {
        if (_folder is not null)
        {
            // Before the silo is active: no shard activates, here or for another silo asking, before its copy is kept.
            lifecycle.Subscribe(nameof(ShardFiles), ServiceLifecycleStage.ApplicationServices, token => Task.Run(Load, token));
        }
    }

    /// <summary>Keeps every whole snapshot in the folder as a frozen copy of its shard; a file that cannot be read is logged and passed over.</summary>
    private void Load()
    {
        if (!Directory.Exists(_folder))
        {
            return;
        }

        var started = time.GetTimestamp();
        var (shards, entries) = (0, 0);
        foreach (var path in Directory.EnumerateFiles(_folder, "shard-*" + Suffix))
        {
            if (!int.TryParse(Path.GetFileName(path).AsSpan(6, Path.GetFileName(path).Length - 6 - Suffix.Length), out var slot) || slot < 0 || slot >= catalog.SlotCount)
            {
                Unreadable(path, "its name is not that of a shard of this cluster");
                continue;
            }

            if (LoadShard(path, slot) is { } loaded)
            {
                shards++;
                entries += loaded;
            }
        }

        (_shardsLoaded, _entriesLoaded) = (shards, entries);
        _loadMilliseconds = (long)time.GetElapsedTime(started).TotalMilliseconds;
        LogLoaded(logger, shards, entries, _folder!);
    }

    private int? LoadShard(string path, int slot)
    {
        (ShardFileStamp Stamp, List<byte[]> Chunks)? snapshot;
        string? problem;
        try
        {
            using var stream = File.OpenRead(path);
            snapshot = ShardSnapshotFile.Read(stream, slot, out problem);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            (snapshot, problem) = (null, exception.Message);
        }

        if (snapshot is not { } found)
        {
            Unreadable(path, problem!);
            return null;
        }

        var (stamp, chunks) = found;

        var shard = catalog.CreateDetached(slot);
        try
        {
            var installed = chunks.Sum(chunk => shard.Install(chunk));
            replicas.KeepStored(slot, stamp.Epoch, stamp.Sequence, shard);
            return installed;
        }
        catch (InvalidDataException exception)
        {
            shard.Dispose();
            Unreadable(path, exception.Message);
            return null;
        }
    }

    private void Unreadable(string path, string problem)
    {
        _filesUnreadable++;
        LogUnreadable(logger, path, problem);
    }

    private string PathOf(int slot) => Path.Combine(_folder!, $"shard-{slot:D4}{Suffix}");

    [LoggerMessage(EventId = LogEvents.ShardNotSaved, Level = LogLevel.Error, Message = "Shard {Shard} could not be written to {Folder} (Cubby:Persistence:Directory); its entries stay in memory only")]
    private static partial void LogNotSaved(ILogger logger, Exception exception, int shard, string folder);

    [LoggerMessage(EventId = LogEvents.ShardsLoaded, Level = LogLevel.Information, Message = "Loaded {Shards} shards with {Entries} entries from {Folder}")]
    private static partial void LogLoaded(ILogger logger, int shards, int entries, string folder);

    [LoggerMessage(EventId = LogEvents.ShardFileUnreadable, Level = LogLevel.Error, Message = "The shard file {File} was not loaded: {Problem}")]
    private static partial void LogUnreadable(ILogger logger, string file, string problem);
}
