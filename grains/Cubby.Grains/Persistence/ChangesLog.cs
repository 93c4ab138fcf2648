using Cubby.Diagnostics;
using Cubby.Grains.Replication;
using Microsoft.Extensions.Logging;

namespace Cubby.Grains.Persistence;

/// <summary>
/// A silo's changes file: every shard held here appends what its turns changed (<see cref="ChangeRecords"/>) to one
/// buffer, which a loop writes to the file and has put on the disk every half <c>Cubby:Persistence:FlushInterval</c>,
/// so nothing appended more than a whole interval ago is lost to a crash or a power cut, however long the disk takes
/// (up to half an interval). One file for all the shards, as Redis keeps one append-only file: a flush is one write
/// and one fsync, however many shards changed. With an interval of zero the loop flushes whenever anything waits, and
/// a shard's writers wait for their changes to be on the disk before they are answered (<see cref="WaitsForDisk"/>).
/// A file that cannot be written (a full disk) is logged and counted; the changes stay in memory, as the cache goes
/// on serving. The file then stops where it was whole, and nothing more is appended to it: what it holds stays a history
/// without a gap, older than the shards in memory, never a mix of older and newer.
/// </summary>
internal sealed partial class ChangesLog : IAsyncDisposable
{
    /// <summary>
    /// How much may wait in memory before it is written to the file, ahead of the next flush: written early it stays a
    /// few warm buffers, where a busy silo's whole interval (tens of megabytes) would take fresh memory every flush.
    /// </summary>
    private const int WriteAheadBytes = 4 * 1024 * 1024;

    private readonly Lock _gate = new();
    private readonly FileStream _file;
    private readonly TimeSpan _interval;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly SemaphoreSlim _wake = new(0);
    private readonly CancellationTokenSource _stopping = new();
    private readonly List<(long Position, TaskCompletionSource Done)> _waiters = [];
    private readonly Task _loop;
    private TaskCompletionSource _grown = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private bool _writeAsked;

    // Whether the file holds bytes written ahead that no flush has put on the disk yet. The loop's own.
    private bool _unsynced;
    private SegmentedBuffer _appending = new();
    private SegmentedBuffer _flushing = new();
    private long _appended;
    private long _durable;
    private long _failures;
    private long _batches;
    private long _fileLength;
    private long _flushes;
    private long _flushTicks;
    private volatile bool _broken;

    private ChangesLog(string path, TimeSpan interval, TimeProvider time, ILogger logger)
    {
        Path = path;
        _interval = interval;
        _time = time;
        _logger = logger;
        _file = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.Read, bufferSize: 0);
        Span<byte> header = stackalloc byte[RecordFormat.HeaderBytes];
        RecordFormat.WriteHeader(header, RecordFileKind.Changes, slot: -1);
        _file.Write(header);
        _file.Flush(flushToDisk: true);
        _fileLength = header.Length;
        WholeFile.FlushDirectory(System.IO.Path.GetDirectoryName(path)!);
        _loop = Task.Run(RunAsync);
    }

    /// <summary>The file.</summary>
    public string Path { get; }

    /// <summary>Whether writers wait for their changes to be on the disk (<c>FlushInterval</c> 0).</summary>
    public bool WaitsForDisk => _interval == TimeSpan.Zero;

    /// <summary>How many bytes were appended, and how many of them are on the disk (or were dropped by a failed write).</summary>
    public (long Appended, long Durable) Positions
    {
        get
        {
            lock (_gate)
            {
                return (_appended, _durable);
            }
        }
    }

    /// <summary>How many batches were appended.</summary>
    public long Batches
    {
        get
        {
            lock (_gate)
            {
                return _batches;
            }
        }
    }

    /// <summary>How many bytes the file holds, how many flushes put records on the disk, and how long they took in all.</summary>
    public (long Bytes, long Flushes, TimeSpan Flushing) Written =>
        (Interlocked.Read(ref _fileLength), Interlocked.Read(ref _flushes), TimeSpan.FromTicks(Interlocked.Read(ref _flushTicks)));

    /// <summary>How many flushes failed.</summary>
    public long Failures => Interlocked.Read(ref _failures);

    /// <summary>Whether a flush failed, so the file no longer takes changes.</summary>
    public bool Broken => _broken;

    /// <summary>Makes a new changes file at <paramref name="path"/> (which must not exist) and starts flushing it.</summary>
    public static ChangesLog Create(string path, TimeSpan interval, TimeProvider time, ILogger logger) => new(path, interval, time, logger);

    /// <summary>Appends a batch sealed by shard <paramref name="slot"/>, primary at <paramref name="epoch"/>; returns where it ends.</summary>
    public long Append(int slot, long epoch, ReplicaBatch batch) =>
        Append(slot, epoch, batch.Sequence, batch.Cleared, batch.Upserts, batch.Removed);

    /// <summary>
    /// Appends the batch <paramref name="sequence"/> of shard <paramref name="slot"/>, primary at <paramref name="epoch"/>,
    /// from the shard's own buffers (no replica takes it); returns where it ends.
    /// </summary>
    public long Append(int slot, long epoch, long sequence, bool cleared, ReadOnlySpan<byte> upserts, byte[][] removed)
    {
        if (_broken)
        {
            return Volatile.Read(ref _appended);
        }

        var size = ChangeRecords.SizeOf(upserts.Length, removed);
        lock (_gate)
        {
            var record = _appending.GetSpan(RecordFormat.RecordHeaderBytes + size);
            ChangeRecords.WriteBatch(record[RecordFormat.RecordHeaderBytes..], slot, epoch, sequence, cleared, upserts, removed);
            RecordFormat.WriteRecordHeader(record, ChangeRecords.Batch, record[RecordFormat.RecordHeaderBytes..]);
            _appending.Advance(record.Length);
            _batches++;
            _appended += record.Length;
            if (!_writeAsked && _appending.Length >= WriteAheadBytes)
            {
                _writeAsked = true;
                _grown.TrySetResult();
            }

            return _appended;
        }
    }

    /// <summary>Appends a record of another kind (<see cref="ChangeRecords"/>); returns where it ends.</summary>
    public long Append(byte kind, ReadOnlySpan<byte> payload)
    {
        lock (_gate)
        {
            var record = _appending.GetSpan(RecordFormat.RecordHeaderBytes + payload.Length);
            payload.CopyTo(record[RecordFormat.RecordHeaderBytes..]);
            RecordFormat.WriteRecordHeader(record, kind, payload);
            _appending.Advance(record.Length);
            return _appended += record.Length;
        }
    }

    /// <summary>
    /// Completes once what was appended up to <paramref name="position"/> is on the disk, or its write failed (the cache
    /// goes on; the failure is logged and counted).
    /// </summary>
    public ValueTask WhenDurableAsync(long position)
    {
        lock (_gate)
        {
            if (_durable >= position)
            {
                return ValueTask.CompletedTask;
            }

            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Add((position, done));
            if (_wake.CurrentCount == 0)
            {
                _wake.Release();
            }

            return new ValueTask(done.Task);
        }
    }

    /// <summary>Writes what was appended so far and has it put on the disk; false when that failed.</summary>
    public bool Flush()
    {
        long position;
        lock (_gate)
        {
            position = _appended;
        }

        var written = Write(sync: true);
        List<TaskCompletionSource>? done = null;
        lock (_gate)
        {
            _durable = position;
            for (var i = _waiters.Count - 1; i >= 0; i--)
            {
                if (_waiters[i].Position <= position)
                {
                    (done ??= []).Add(_waiters[i].Done);
                    _waiters.RemoveAt(i);
                }
            }
        }

        done?.ForEach(static waiter => waiter.TrySetResult());
        return written;
    }

    /// <summary>
    /// Writes what was appended so far to the file, and with <paramref name="sync"/> has the file put on the disk;
    /// false when that failed, after which the file takes nothing more.
    /// </summary>
    private bool Write(bool sync)
    {
        lock (_gate)
        {
            (_appending, _flushing) = (_flushing, _appending);
            _writeAsked = false;
            if (_grown.Task.IsCompleted)
            {
                _grown = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            }
        }

        var written = !_broken;
        if (written && (_flushing.Length > 0 || (sync && _unsynced)))
        {
            var started = _time.GetTimestamp();
            try
            {
                _flushing.WriteTo(_file);
                Interlocked.Add(ref _fileLength, _flushing.Length);
                _unsynced = !sync;
                if (sync)
                {
                    _file.Flush(flushToDisk: true);
                    Interlocked.Increment(ref _flushes);
                }

                Interlocked.Add(ref _flushTicks, _time.GetElapsedTime(started).Ticks);
            }
            catch (IOException exception)
            {
                written = false;
                _broken = true;
                Interlocked.Increment(ref _failures);
                LogNotWritten(_logger, exception, Path);
                CutBackToWhole();
            }
        }

        _flushing.Clear();
        return written;
    }

    /// <summary>Cuts a record the failed write left half written, so a reader finds the file whole up to its end.</summary>
    private void CutBackToWhole()
    {
        try
        {
            _file.SetLength(Interlocked.Read(ref _fileLength));
            _file.Flush(flushToDisk: true);
        }
        catch (IOException)
        {
            // A reader stops at the half-written record, which is the same end.
        }
    }

    private async Task RunAsync()
    {
        var token = _stopping.Token;
        while (!token.IsCancellationRequested)
        {
            try
            {
                if (WaitsForDisk)
                {
                    await _wake.WaitAsync(token).ConfigureAwait(false);
                }
                else
                {
                    await WriteAheadUntilAsync(Task.Delay(_interval / 2, _time, token)).ConfigureAwait(false);
                }
            }
            catch (OperationCanceledException)
            {
                break;
            }

            Flush();
        }
    }

    /// <summary>Writes what was appended each time it grows past <see cref="WriteAheadBytes"/>, until <paramref name="flushDue"/>.</summary>
    private async Task WriteAheadUntilAsync(Task flushDue)
    {
        while (true)
        {
            Task grown;
            lock (_gate)
            {
                grown = _grown.Task;
            }

            if (await Task.WhenAny(flushDue, grown).ConfigureAwait(false) == flushDue)
            {
                await flushDue.ConfigureAwait(false);
                return;
            }

            Write(sync: false);
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _stopping.CancelAsync().ConfigureAwait(false);
        await _loop.ConfigureAwait(false);
        Flush();
        await _file.DisposeAsync().ConfigureAwait(false);
        _stopping.Dispose();
        _wake.Dispose();
    }

    [LoggerMessage(EventId = LogEvents.ChangesNotWritten, Level = LogLevel.Error, Message = "The changes file {File} (Cubby:Persistence:Directory) could not be written; the changes since the last flush are kept in memory only")]
    private static partial void LogNotWritten(ILogger logger, Exception exception, string file);
}
