using Cubby.Grains.Persistence;

namespace Cubby.Grains.Reports;

/// <summary>This silo's shards on disk, as <see cref="ShardFigures.Persistence"/> reads them.</summary>
/// <param name="Folder">The persistence folder.</param>
/// <param name="ChangesFile">Whether changes are written to the changes file as they are made (off while none is open).</param>
/// <param name="Appended">Bytes appended to the changes file.</param>
/// <param name="Durable">Of those, bytes flushed to the disk.</param>
/// <param name="Broken">Whether the changes file failed and is no longer written.</param>
/// <param name="ChangesRecorded">Batches of changes recorded since start.</param>
/// <param name="BytesWritten">Bytes written to the folder: snapshots and changes.</param>
/// <param name="Flushes">Flushes that put the changes file's records on the disk.</param>
/// <param name="Flushing">Time spent writing and flushing the changes file, in all.</param>
/// <param name="FlushFailures">Writes to the folder that failed.</param>
/// <param name="ShardsLoaded">Shards loaded from the folder as the silo started.</param>
/// <param name="EntriesLoaded">Entries they held.</param>
/// <param name="FilesUnreadable">Files that could not be read then.</param>
/// <param name="LoadTime">How long the load took.</param>
/// <param name="ShardsNotSaved">Shards whose last save failed.</param>
public sealed record PersistenceFigures(
    string Folder,
    bool ChangesFile,
    long Appended,
    long Durable,
    bool Broken,
    long ChangesRecorded,
    long BytesWritten,
    long Flushes,
    TimeSpan Flushing,
    long FlushFailures,
    int ShardsLoaded,
    long EntriesLoaded,
    int FilesUnreadable,
    TimeSpan LoadTime,
    int ShardsNotSaved)
{
    internal static PersistenceFigures Of(ShardFiles files)
    {
        var changes = files.Changes;
        var (appended, durable) = changes?.Positions ?? default;
        var totals = files.Totals;
        var (shards, entries, unreadable, milliseconds) = files.Loaded;
        return new PersistenceFigures(
            files.Folder!, changes is not null, appended, durable, changes is { Broken: true }, files.ChangesRecorded,
            totals.BytesWritten, totals.Flushes, totals.Flushing, totals.FlushFailures,
            shards, entries, unreadable, TimeSpan.FromMilliseconds(milliseconds), files.ShardsNotSaved);
    }
}
