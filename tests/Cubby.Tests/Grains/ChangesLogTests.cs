using Cubby.Grains.Persistence;
using Cubby.Grains.Replication;
using Cubby.Tests.Client;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;

namespace Cubby.Tests.Grains;

/// <summary>
/// A silo's changes file: batches go to the file ahead of their flush once a few megabytes wait, but count as on the
/// disk only when the flush, every half interval, has put them there; every batch reads back whole, in order.
/// </summary>
public sealed class ChangesLogTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(30);

    private readonly DirectoryInfo _folder = Directory.CreateTempSubdirectory("cubby-changes-");

    public void Dispose() => _folder.Delete(recursive: true);

    [Fact]
    public async Task Megabytes_appended_are_written_ahead_and_count_as_on_the_disk_only_after_the_flush()
    {
        var time = new FakeTimeProvider();
        var path = Path.Combine(_folder.FullName, "changes-000001.log");
        var log = ChangesLog.Create(path, TimeSpan.FromSeconds(1), time, NullLogger.Instance);
        var upserts = new byte[64 * 1024];
        long end = 0;
        for (var sequence = 1; sequence <= 96; sequence++)
        {
            upserts[0] = (byte)sequence;
            end = log.Append(slot: 7, epoch: 3, sequence, cleared: false, upserts, removed: []);
        }

        await Poll.UntilAsync(() => new FileInfo(path).Length >= 4 * 1024 * 1024, Deadline, "the batches were written ahead of the flush");
        Assert.True(log.Positions.Durable < end, "batches only written count as on the disk");
        Assert.Equal(0, log.Written.Flushes);

        await Poll.UntilAsync(() => HalfIntervalLater(time) && log.Positions.Durable == end, Deadline, "the flush put every batch on the disk");
        Assert.Equal(RecordFormat.HeaderBytes + end, new FileInfo(path).Length);
        await log.DisposeAsync();

        var sequences = ReadBatches(path).Select(static batch => (batch.Sequence, (int)batch.Upserts![0])).ToList();
        Assert.Equal(Enumerable.Range(1, 96).Select(static i => ((long)i, i)), sequences);
    }

    [Fact]
    public async Task A_flush_with_nothing_new_does_not_sync_the_file_again()
    {
        var time = new FakeTimeProvider();
        var path = Path.Combine(_folder.FullName, "changes-000001.log");
        var log = ChangesLog.Create(path, TimeSpan.FromSeconds(1), time, NullLogger.Instance);
        var end = log.Append(slot: 1, epoch: 1, sequence: 1, cleared: true, default, removed: ["gone"u8.ToArray()]);

        await Poll.UntilAsync(() => HalfIntervalLater(time) && log.Positions.Durable == end, Deadline, "the flush put the batch on the disk");
        var flushes = log.Written.Flushes;

        await log.DisposeAsync();
        Assert.Equal(1, flushes);
        Assert.Equal(flushes, log.Written.Flushes);
        var batch = Assert.Single(ReadBatches(path));
        Assert.True(batch.Cleared);
        Assert.Null(batch.Upserts);
        Assert.Equal("gone"u8.ToArray(), Assert.Single(batch.Removed));
    }

    [Fact]
    public async Task With_no_interval_a_writer_waits_for_its_batch_to_be_on_the_disk()
    {
        var path = Path.Combine(_folder.FullName, "changes-000001.log");
        await using var log = ChangesLog.Create(path, TimeSpan.Zero, TimeProvider.System, NullLogger.Instance);
        var end = log.Append(slot: 2, epoch: 1, sequence: 1, cleared: false, new byte[100], removed: []);

        await log.WhenDurableAsync(end).AsTask().WaitAsync(Deadline);

        Assert.True(log.Positions.Durable >= end);
        Assert.True(new FileInfo(path).Length >= end);
    }

    /// <summary>Moves the fake clock on by half the interval (the loop may start its wait after any one move); true.</summary>
    private static bool HalfIntervalLater(FakeTimeProvider time)
    {
        time.Advance(TimeSpan.FromMilliseconds(500));
        return true;
    }

    private static List<ReplicaBatch> ReadBatches(string path)
    {
        using var file = File.OpenRead(path);
        var reader = RecordReader.Open(file, out var problem)!;
        Assert.Null(problem);
        var batches = new List<ReplicaBatch>();
        while (reader.TryRead(out var kind, out var payload))
        {
            Assert.Equal(ChangeRecords.Batch, kind);
            batches.Add(ChangeRecords.ReadBatch(payload));
        }

        Assert.Null(reader.Problem);
        return batches;
    }
}
