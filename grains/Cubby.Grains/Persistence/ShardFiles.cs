using System.Globalization;
using Cubby.Diagnostics;
using Cubby.Grains.Hosting;
using Cubby.Grains.Replication;
using Microsoft.Extensions.Logging;
using Orleans.Runtime;

namespace Cubby.Grains.Persistence;

/// <summary>
/// This silo's shards in its persistence folder (<see cref="PersistenceOptions"/>): a snapshot file per shard, and one
/// changes file (<see cref="ChangesLog"/>) that every shard held here appends its turns' changes to, from the moment it
/// begins here (<see cref="Began"/>). As the silo starts, before it serves, each shard is rebuilt from its snapshot and
/// the changes after it (<see cref="ShardRecovery"/>), written whole again as one snapshot, and kept as a frozen copy
/// (<see cref="ShardReplicas.KeepStored"/>) that the shard resumes from wherever it activates, unless a silo holds a
/// newer one; the changes files read are then deleted and a new one begun. A folder that cannot be written costs the
/// entries' survival, never the silo: the failure is logged with the folder's name and the entries stay in memory.
/// Design: <c>docs/persistence.md</c>.
/// </summary>
internal sealed partial class ShardFiles(ShardCatalog catalog, ShardReplicas replicas, TimeProvider time, ILogger<ShardFiles> logger)
    : ILifecycleParticipant<ISiloLifecycle>, IDisposable
{
    private const string SnapshotSuffix = ".snapshot";
    private const string ChangesPrefix = "changes-";
    private const string ChangesSuffix = ".log";

    private readonly string? _folder = catalog.Options.Persistence.Enabled ? Path.GetFullPath(catalog.Options.Persistence.Directory!) : null;
    private readonly SemaphoreSlim?[] _saving = new SemaphoreSlim?[catalog.SlotCount];

    // Each shard loaded at start whose snapshot file holds exactly its entries (the changes files read are gone): the
    // frozen copy kept, and the file's stamp. Taken when the shard begins here from that very copy.
    private readonly Dictionary<int, (Shard Copy, long Epoch, long Sequence)> _asOnDisk = [];

    private int _shardsLoaded;
    private long _entriesLoaded;
    private int _filesUnreadable;
    private long _loadMilliseconds;
    private int _shardsNotSaved;
    private ChangesLog? _changes;
    private long _generation;
    private long _earlierBatches;
    private long _snapshotBytes;
    private PersistenceTotals _earlierFiles;
    private long _rollAt;
    private readonly SemaphoreSlim _rolling = new(1, 1);
    private readonly CancellationTokenSource _stopping = new();
    private Task _watching = Task.CompletedTask;

    /// <summary>How often the size of the changes file is looked at.</summary>
    private static readonly TimeSpan SizeCheckPeriod = TimeSpan.FromSeconds(1);

    /// <summary>Whether shards are kept on disk.</summary>
    public bool Enabled => _folder is not null;

    /// <summary>The persistence folder, when there is one.</summary>
    public string? Folder => _folder;

    /// <summary>The changes file the shards held here append to, once the silo has loaded its folder.</summary>
    public ChangesLog? Changes => Volatile.Read(ref _changes);

    /// <summary>How many batches of changes the shards held here appended since the silo started.</summary>
    public long ChangesRecorded => Interlocked.Read(ref _earlierBatches) + (Changes?.Batches ?? 0);

    /// <summary>What this silo wrote to its folder since it started, and how its changes files' flushes went.</summary>
    public PersistenceTotals Totals
    {
        get
        {
            var (bytes, flushes, flushing) = Changes?.Written ?? default;
            var earlier = _earlierFiles;
            return new PersistenceTotals(
                Interlocked.Read(ref _snapshotBytes) + earlier.BytesWritten + bytes,
                earlier.Flushes + flushes,
                earlier.Flushing + flushing,
                earlier.FlushFailures + (Changes?.Failures ?? 0) + ShardsNotSaved);
        }
    }

    /// <summary>What the silo loaded as it started.</summary>
    public (int Shards, long Entries, int Unreadable, long Milliseconds) Loaded =>
        (Volatile.Read(ref _shardsLoaded), Volatile.Read(ref _entriesLoaded), Volatile.Read(ref _filesUnreadable), Volatile.Read(ref _loadMilliseconds));

    /// <summary>How many times a shard could not be written since the silo started.</summary>
    public int ShardsNotSaved => Volatile.Read(ref _shardsNotSaved);

    /// <summary>
    /// Shard <paramref name="slot"/> begins as primary here at <paramref name="epoch"/>: from now on its changes go to
    /// the changes file, after a record of where it began. A shard that begins with entries (resumed, or arrived) has
    /// its snapshot written at once, since no record here holds them.
    /// </summary>
    public void Began(int slot, long epoch, Shard shard)
    {
        var empty = shard.Count == 0;
        var onDisk = empty ? null : TakeAsOnDisk(slot, shard);
        ChangesLog? logged = null;
        var files = 0;

        // A new changes file begun meanwhile (RollAsync) may not have found this shard yet: it begins there too, and
        // there with a snapshot of its own, as the roll deletes the files its snapshot file's stamp was true for.
        while (Changes is { } changes && !ReferenceEquals(changes, logged))
        {
            var fromFile = files++ == 0 ? onDisk : null;
            shard.LogTo(changes, epoch, begin: sequence => changes.Append(
                ChangeRecords.Began,
                fromFile is { } file ? ChangeRecords.BeganFromFilePayload(slot, epoch, sequence, file.Epoch, file.Sequence) : ChangeRecords.BeganPayload(slot, epoch, sequence, empty)));
            logged = changes;
        }

        // Resumed from the copy loaded at start, it holds what its file holds: writing that again would double the work
        // of every restart (each shard written once as loaded, then once as it activates).
        if (logged is not null && !empty && (onDisk is null || files > 1))
        {
            _ = SaveAsync(slot, epoch, shard);
        }
    }

    /// <summary>The stamp of <paramref name="slot"/>'s snapshot file when <paramref name="shard"/> is the copy loaded from it, untouched.</summary>
    private (long Epoch, long Sequence)? TakeAsOnDisk(int slot, Shard shard)
    {
        lock (_asOnDisk)
        {
            return _asOnDisk.Remove(slot, out var kept) && ReferenceEquals(kept.Copy, shard) ? (kept.Epoch, kept.Sequence) : null;
        }
    }

    /// <summary>
    /// Begins a new changes file and writes every shard held here whole, each with a record of it in the new file; then
    /// deletes the older changes files, which hold nothing the snapshots do not (kept when a shard could not be
    /// written). False when it did not begin (no folder, a roll under way, the file could not be made) or a shard
    /// could not be written.
    /// </summary>
    public async Task<bool> RollAsync()
    {
        if (_folder is null || !await _rolling.WaitAsync(0).ConfigureAwait(false))
        {
            return false;
        }

        try
        {
            var earlier = Changes;
            if (BeginChanges() is not { } next)
            {
                return false;
            }

            var (whole, bytes) = (true, 0L);
            for (var slot = 0; slot < catalog.SlotCount; slot++)
            {
                if (catalog.Find(slot) is { LogEpoch: { } epoch } shard)
                {
                    var held = slot;
                    shard.LogTo(next, epoch, begin: sequence => next.Append(ChangeRecords.Began, ChangeRecords.BeganPayload(held, epoch, sequence, empty: false)));
                    whole &= await SaveAsync(slot, epoch, shard).ConfigureAwait(false);
                    bytes += SizeOf(PathOf(slot));
                }
            }

            if (earlier is not null)
            {
                await earlier.DisposeAsync().ConfigureAwait(false);
                Interlocked.Add(ref _earlierBatches, earlier.Batches);
                var (written, flushes, flushing) = earlier.Written;
                _earlierFiles = _earlierFiles with
                {
                    BytesWritten = _earlierFiles.BytesWritten + written,
                    Flushes = _earlierFiles.Flushes + flushes,
                    Flushing = _earlierFiles.Flushing + flushing,
                    FlushFailures = _earlierFiles.FlushFailures + earlier.Failures,
                };
            }

            if (whole)
            {
                foreach (var (generation, path) in ChangeFiles())
                {
                    if (generation < Interlocked.Read(ref _generation))
                    {
                        DeleteQuietly(path);
                    }
                }
            }

            Volatile.Write(ref _rollAt, Math.Max(catalog.Options.Persistence.ChangesFileMinBytes, bytes));
            LogRolled(logger, next.Path, whole);
            return whole;
        }
        finally
        {
            _rolling.Release();
        }
    }

    /// <summary>
    /// Writes shard <paramref name="slot"/>'s snapshot, stamped with <paramref name="epoch"/>, and records in the changes
    /// file that it is on disk; false when there is no folder or the write failed (logged).
    /// </summary>
    public async Task<bool> SaveAsync(int slot, long epoch, Shard shard)
    {
        if (_folder is null)
        {
            return false;
        }

        var saving = SavingGate(slot);
        await saving.WaitAsync().ConfigureAwait(false);
        try
        {
            var snapshot = await shard.SnapshotAsync(ShardGrain.MigrationChunkBytes).ConfigureAwait(false);
            Directory.CreateDirectory(_folder);
            ShardSnapshotFile.Write(PathOf(slot), slot, new ShardFileStamp(epoch, snapshot.Sequence, time.GetUtcNow().ToUnixTimeMilliseconds()), snapshot.Chunks);
            Interlocked.Add(ref _snapshotBytes, SizeOf(PathOf(slot)));
            Changes?.Append(ChangeRecords.Saved, ChangeRecords.StampPayload(slot, epoch, snapshot.Sequence));
            return true;
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            Interlocked.Increment(ref _shardsNotSaved);
            LogNotSaved(logger, exception, slot, _folder);
            return false;
        }
        catch (ObjectDisposedException)
        {
            // Deactivated meanwhile: it left (its changes file says so) or was written as the silo stopped.
            return false;
        }
        finally
        {
            saving.Release();
        }
    }

    /// <summary>Shard <paramref name="slot"/> left this silo with its entries: its file goes, and the changes file says so.</summary>
    public void Forget(int slot, long epoch)
    {
        if (_folder is null)
        {
            return;
        }

        Changes?.Append(ChangeRecords.Left, ChangeRecords.StampPayload(slot, epoch, 0));
        try
        {
            File.Delete(PathOf(slot));
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            // Left behind, it is older than the shard's new home holds, and the changes file says the shard left.
            LogNotSaved(logger, exception, slot, _folder);
        }
    }

    void ILifecycleParticipant<ISiloLifecycle>.Participate(ISiloLifecycle lifecycle)
    {
        if (_folder is not null)
        {
            // Before the silo is active: no shard activates, here or for another silo asking, before its copy is kept.
            // Stopped after the shards were deactivated (a later stage stops first), so their last records reach the file.
            lifecycle.Subscribe(nameof(ShardFiles), ServiceLifecycleStage.ApplicationServices, token => Task.Run(Load, token), StopAsync);
        }
    }

    public void Dispose()
    {
        _stopping.Dispose();
        _rolling.Dispose();
        foreach (var gate in _saving)
        {
            gate?.Dispose();
        }
    }

    private async Task StopAsync(CancellationToken token)
    {
        await _stopping.CancelAsync().ConfigureAwait(false);
        await _watching.ConfigureAwait(false);
        await _rolling.WaitAsync(CancellationToken.None).ConfigureAwait(false);
        if (Interlocked.Exchange(ref _changes, null) is { } changes)
        {
            await changes.DisposeAsync().ConfigureAwait(false);
        }
    }

    private void Load()
    {
        var started = time.GetTimestamp();
        var recoveries = new Dictionary<int, ShardRecovery>();
        if (!Directory.Exists(_folder))
        {
            TryCreateFolder();
        }

        var changeFiles = Directory.Exists(_folder) ? ChangeFiles() : [];
        try
        {
            ReadSnapshots(recoveries);
            var gapped = false;
            foreach (var (_, path) in changeFiles)
            {
                gapped |= !Replay(path, recoveries, gapped);
            }

            var (shards, entries, whole, kept) = Keep(recoveries);
            (_shardsLoaded, _entriesLoaded) = (shards, entries);
            if (whole)
            {
                // Every shard they changed is written whole again: they hold nothing more.
                changeFiles.ForEach(file => DeleteQuietly(file.Path));
                if (changeFiles.TrueForAll(static file => !File.Exists(file.Path)))
                {
                    // Each file now says all there is of its shard: a shard that begins from its copy need not write it.
                    lock (_asOnDisk)
                    {
                        kept.ForEach(copy => _asOnDisk[copy.Slot] = (copy.Copy, copy.Epoch, copy.Sequence));
                    }
                }
            }
        }
        finally
        {
            foreach (var recovery in recoveries.Values)
            {
                recovery.Dispose();
            }
        }

        _generation = changeFiles.Count == 0 ? 0 : changeFiles[^1].Generation;
        _rollAt = catalog.Options.Persistence.ChangesFileMinBytes;
        BeginChanges();
        _watching = WatchSizeAsync(_stopping.Token);
        _loadMilliseconds = (long)time.GetElapsedTime(started).TotalMilliseconds;
        LogLoaded(logger, _shardsLoaded, _entriesLoaded, _folder!);
    }

    /// <summary>Makes the next changes file and has shards that begin from now on append to it; null when it could not be made (logged).</summary>
    private ChangesLog? BeginChanges()
    {
        var path = Path.Combine(_folder!, $"{ChangesPrefix}{Interlocked.Increment(ref _generation):D6}{ChangesSuffix}");
        try
        {
            var changes = ChangesLog.Create(path, catalog.Options.Persistence.FlushInterval, time, logger);
            Volatile.Write(ref _changes, changes);
            return changes;
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            // The shards are still written whole as the silo stops, and by SAVE, when the folder takes them by then.
            LogChangesNotBegun(logger, exception, path);
            return null;
        }
    }

    /// <summary>Begins a new changes file whenever this one has grown past <see cref="_rollAt"/>.</summary>
    private async Task WatchSizeAsync(CancellationToken token)
    {
        while (!token.IsCancellationRequested)
        {
            try
            {
                await Task.Delay(SizeCheckPeriod, time, token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return;
            }

            if (Changes is { } changes && changes.Positions.Appended >= Volatile.Read(ref _rollAt))
            {
                await RollAsync().ConfigureAwait(false);
            }
        }
    }

    private static long SizeOf(string path)
    {
        try
        {
            return new FileInfo(path).Length;
        }
        catch (IOException)
        {
            return 0;
        }
    }

    /// <summary>The changes files in the folder, oldest first.</summary>
    private List<(long Generation, string Path)> ChangeFiles()
    {
        var files = new List<(long Generation, string Path)>();
        foreach (var path in Directory.EnumerateFiles(_folder!, ChangesPrefix + "*" + ChangesSuffix))
        {
            if (SlotOf(path, ChangesPrefix, ChangesSuffix) is { } generation)
            {
                files.Add((generation, path));
            }
            else
            {
                Unreadable(path, "its name is not that of a changes file");
            }
        }

        files.Sort(static (a, b) => a.Generation.CompareTo(b.Generation));
        return files;
    }

    /// <summary>
    /// Reads every shard's snapshot file into <paramref name="recoveries"/>, on every core: each file is its own shard's,
    /// decoded into a shard of its own, as shards run side by side once serving.
    /// </summary>
    private void ReadSnapshots(Dictionary<int, ShardRecovery> recoveries)
    {
        var files = Directory.Exists(_folder) ? Directory.GetFiles(_folder!, "shard-*" + SnapshotSuffix) : [];
        var read = new ShardRecovery?[catalog.SlotCount];
        try
        {
            Parallel.ForEach(files, path =>
            {
                if (SlotOf(path, "shard-", SnapshotSuffix) is not { } number || number >= catalog.SlotCount)
                {
                    Unreadable(path, "its name is not that of a shard of this cluster");
                }
                else if (ReadSnapshot(path, (int)number) is { } snapshot)
                {
                    var slot = (int)number;
                    var recovery = new ShardRecovery(() => catalog.CreateDetached(slot), snapshot);
                    if (Interlocked.CompareExchange(ref read[slot], recovery, null) is not null)
                    {
                        recovery.Dispose();
                        Unreadable(path, $"another file holds shard {slot} already");
                    }
                }
            });
        }
        catch (AggregateException failures) when (failures.InnerExceptions.Count == 1)
        {
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(failures.InnerExceptions[0]);
        }
        finally
        {
            for (var slot = 0; slot < read.Length; slot++)
            {
                if (read[slot] is { } recovery)
                {
                    recoveries[slot] = recovery;
                }
            }
        }
    }

    /// <summary>
    /// Applies the records of one changes file; false when it stopped short of its end (cut by a crash, or damaged),
    /// which leaves a gap before the records of the files after it.
    /// </summary>
    private bool Replay(string path, Dictionary<int, ShardRecovery> recoveries, bool gapped)
    {
        string? problem;
        try
        {
            using var stream = File.OpenRead(path);
            var reader = RecordReader.Open(stream, out problem);
            if (reader is { Kind: not RecordFileKind.Changes } other)
            {
                (reader, problem) = (null, $"the file is a {other.Kind} file, not a changes file");
            }

            while (reader is not null && reader.TryRead(out var kind, out var payload))
            {
                var (slot, epoch, sequence) = ChangeRecords.ReadStamp(payload);
                if (slot < 0 || slot >= catalog.SlotCount)
                {
                    throw new InvalidDataException($"a record at byte {reader.Offset - payload.Length - RecordFormat.RecordHeaderBytes} names shard {slot}, not one of this cluster's");
                }

                if (!recoveries.TryGetValue(slot, out var recovery))
                {
                    recoveries[slot] = recovery = new ShardRecovery(() => catalog.CreateDetached(slot), null) { Gapped = gapped };
                }

                switch (kind)
                {
                    case ChangeRecords.Batch:
                        recovery.Batch(epoch, ChangeRecords.ReadBatch(payload));
                        break;
                    case ChangeRecords.Began when ChangeRecords.BeganFromFile(payload) is { } file:
                        recovery.BeganFromFile(epoch, sequence, file.Epoch, file.Sequence);
                        break;
                    case ChangeRecords.Began:
                        recovery.Began(epoch, sequence, ChangeRecords.BeganEmpty(payload));
                        break;
                    case ChangeRecords.Saved:
                        recovery.Saved(epoch, sequence);
                        break;
                    case ChangeRecords.Left:
                        recovery.Left();
                        break;
                    default:
                        throw new InvalidDataException($"a record at byte {reader.Offset - payload.Length - RecordFormat.RecordHeaderBytes} is of unknown kind {kind}");
                }
            }

            problem ??= reader?.Problem;
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException or InvalidDataException)
        {
            problem = exception.Message;
        }

        if (problem is null)
        {
            return true;
        }

        Unreadable(path, problem + "; the records before it are loaded");
        foreach (var recovery in recoveries.Values)
        {
            recovery.Gapped = true;
        }

        return false;
    }

    /// <summary>
    /// Keeps each rebuilt shard as a frozen copy, writing again those the changes files changed, and deletes the files
    /// of shards that left; whether every one was written.
    /// </summary>
    private (int Shards, long Entries, bool Whole, List<(int Slot, Shard Copy, long Epoch, long Sequence)> Kept) Keep(Dictionary<int, ShardRecovery> recoveries)
    {
        // Each shard is finished, and written again when changed, on every core; what they did is summed after.
        var recovered = recoveries.ToArray();
        var outcomes = new (Shard? Shard, long Epoch, long Sequence, bool Written)[recovered.Length];
        Parallel.For(0, recovered.Length, i =>
        {
            var (slot, recovery) = recovered[i];
            var changed = recovery.Changed;
            var (shard, epoch, sequence) = recovery.Finish();
            if (shard is null)
            {
                DeleteQuietly(PathOf(slot));
                return;
            }

            var written = !changed || Write(slot, epoch, sequence, shard);
            replicas.KeepStored(slot, epoch, sequence, shard);
            outcomes[i] = (shard, epoch, sequence, written);
        });

        var (shards, entries, whole) = (0, 0L, true);
        var kept = new List<(int Slot, Shard Copy, long Epoch, long Sequence)>();
        for (var i = 0; i < recovered.Length; i++)
        {
            if (outcomes[i] is not { Shard: { } shard } outcome)
            {
                continue;
            }

            whole &= outcome.Written;
            shards++;
            entries += shard.Count;
            if (outcome.Written)
            {
                kept.Add((recovered[i].Key, shard, outcome.Epoch, outcome.Sequence));
            }
        }

        return (shards, entries, whole, kept);
    }

    private bool Write(int slot, long epoch, long sequence, Shard shard)
    {
        try
        {
            var chunks = new List<byte[]>();
            var cursor = 0;
            var chunk = new System.Buffers.ArrayBufferWriter<byte>();
            while (shard.WriteChunk(ref cursor, ShardGrain.MigrationChunkBytes, chunk))
            {
                chunks.Add(chunk.WrittenSpan.ToArray());
                chunk.ResetWrittenCount();
            }

            ShardSnapshotFile.Write(PathOf(slot), slot, new ShardFileStamp(epoch, sequence, time.GetUtcNow().ToUnixTimeMilliseconds()), chunks);
            Interlocked.Add(ref _snapshotBytes, SizeOf(PathOf(slot)));
            return true;
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            Interlocked.Increment(ref _shardsNotSaved);
            LogNotSaved(logger, exception, slot, _folder!);
            return false;
        }
    }

    private (ShardFileStamp Stamp, List<byte[]> Chunks)? ReadSnapshot(string path, int slot)
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

        if (snapshot is null)
        {
            Unreadable(path, problem!);
        }

        return snapshot;
    }

    private static long? SlotOf(string path, string prefix, string suffix)
    {
        var name = Path.GetFileName(path);
        return name.Length > prefix.Length + suffix.Length
            && long.TryParse(name.AsSpan(prefix.Length, name.Length - prefix.Length - suffix.Length), NumberStyles.None, CultureInfo.InvariantCulture, out var number)
            ? number
            : null;
    }

    private SemaphoreSlim SavingGate(int slot)
    {
        var gate = Volatile.Read(ref _saving[slot]);
        if (gate is null)
        {
            var made = new SemaphoreSlim(1, 1);
            gate = Interlocked.CompareExchange(ref _saving[slot], made, null) ?? made;
        }

        return gate;
    }

    private void TryCreateFolder()
    {
        try
        {
            Directory.CreateDirectory(_folder!);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            LogChangesNotBegun(logger, exception, _folder!);
        }
    }

    private void DeleteQuietly(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            // Read again at the next start; what it holds is older than what was written since.
            LogNotDeleted(logger, exception, path);
        }
    }

    private void Unreadable(string path, string problem)
    {
        Interlocked.Increment(ref _filesUnreadable);
        LogUnreadable(logger, path, problem);
    }

    private string PathOf(long slot) => Path.Combine(_folder!, $"shard-{slot:D4}{SnapshotSuffix}");

    [LoggerMessage(EventId = LogEvents.ShardNotSaved, Level = LogLevel.Error, Message = "Shard {Shard} could not be written to {Folder} (Cubby:Persistence:Directory); its entries stay in memory only")]
    private static partial void LogNotSaved(ILogger logger, Exception exception, int shard, string folder);

    [LoggerMessage(EventId = LogEvents.ChangesFileNotBegun, Level = LogLevel.Error, Message = "The changes file {File} (Cubby:Persistence:Directory) could not be made; the shards' changes are not kept on disk until the silo stops or SAVE writes them whole")]
    private static partial void LogChangesNotBegun(ILogger logger, Exception exception, string file);

    [LoggerMessage(EventId = LogEvents.ShardFileNotDeleted, Level = LogLevel.Warning, Message = "The file {File} could not be deleted; it is read again at the next start")]
    private static partial void LogNotDeleted(ILogger logger, Exception exception, string file);

    [LoggerMessage(EventId = LogEvents.ChangesFileBegun, Level = LogLevel.Information, Message = "Began the changes file {File} and wrote every shard held here whole (all written: {Whole})")]
    private static partial void LogRolled(ILogger logger, string file, bool whole);

    [LoggerMessage(EventId = LogEvents.ShardsLoaded, Level = LogLevel.Information, Message = "Loaded {Shards} shards with {Entries} entries from {Folder}")]
    private static partial void LogLoaded(ILogger logger, int shards, long entries, string folder);

    [LoggerMessage(EventId = LogEvents.ShardFileUnreadable, Level = LogLevel.Error, Message = "The file {File} was not loaded whole: {Problem}")]
    private static partial void LogUnreadable(ILogger logger, string file, string problem);
}

/// <summary>What a silo wrote to its persistence folder: bytes (snapshots and changes), flushes of its changes files and their time, failures.</summary>
internal readonly record struct PersistenceTotals(long BytesWritten, long Flushes, TimeSpan Flushing, long FlushFailures);
