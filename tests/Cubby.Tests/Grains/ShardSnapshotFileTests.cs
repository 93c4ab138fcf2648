using Cubby.Grains.Persistence;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

/// <summary>A shard's entries written to a snapshot file and loaded into a new shard, and snapshots that must not load.</summary>
public sealed class ShardSnapshotFileTests : IDisposable
{
    private readonly DirectoryInfo _folder = Directory.CreateTempSubdirectory("cubby-snapshots-");

    public void Dispose() => _folder.Delete(recursive: true);

    [Fact]
    public void Entries_come_back_from_the_file_with_their_values_flags_and_remaining_time()
    {
        using var pair = new MigrationPair(StoreKind.Native, StoreKind.Managed);
        var start = pair.Now;
        for (var i = 0; i < 300; i++)
        {
            var expiry = (i % 3) switch
            {
                0 => default,
                1 => new ExpirySpec(start + 60_000 + i),
                _ => new ExpirySpec(start + 120_000, SlidingWindow: 30_000),
            };
            MigrationPair.Set(pair.Source, MigrationPair.KeyOf(i), new byte[i * 7], expiry, flags: (uint)i);
        }

        var path = Path.Combine(_folder.FullName, "shard.snapshot");
        var stamp = new ShardFileStamp(Epoch: 12, Sequence: 345, TakenAt: start);
        ShardSnapshotFile.Write(path, pair.MovingSlot, stamp, MigrationPair.WriteAllChunks(pair.Source.Find(pair.MovingSlot)!, 4096));

        // The cluster was down for ten seconds.
        pair.Advance(10_000);
        using var stream = File.OpenRead(path);
        var (readStamp, chunks) = ShardSnapshotFile.Read(stream, pair.MovingSlot, out var problem)!.Value;
        var loaded = pair.Target.CreateDetached(pair.MovingSlot);
        var installed = chunks.Sum(chunk => loaded.Install(chunk));
        pair.Target.Attach(pair.MovingSlot, loaded);

        Assert.Null(problem);
        Assert.Equal(stamp, readStamp);
        Assert.True(chunks.Count > 1);
        Assert.Equal(300, installed);
        for (var i = 0; i < 300; i++)
        {
            var (value, metadata) = MigrationPair.Peek(pair.Target, MigrationPair.KeyOf(i))!.Value;
            var kept = MigrationPair.Peek(pair.Source, MigrationPair.KeyOf(i))!.Value.Metadata;
            Assert.Equal(i * 7, value.Length);
            Assert.Equal((uint)i, metadata.Flags);
            Assert.Equal(kept.ExpiresAt, metadata.ExpiresAt);
            Assert.Equal(kept.SlidingWindow, metadata.SlidingWindow);
            Assert.Equal(kept.AbsoluteDeadline, metadata.AbsoluteDeadline);
        }
    }

    [Fact]
    public void A_snapshot_cut_before_its_end_record_or_of_another_shard_loads_nothing()
    {
        var path = Path.Combine(_folder.FullName, "shard.snapshot");
        ShardSnapshotFile.Write(path, 9, new ShardFileStamp(1, 2, 3), [[1, 2, 3], [4, 5]]);
        var bytes = File.ReadAllBytes(path);

        var endRecord = RecordFormat.RecordHeaderBytes + sizeof(int);
        Assert.Null(ShardSnapshotFile.Read(new MemoryStream(bytes[..^endRecord]), 9, out var cut));
        Assert.Equal("the snapshot ends without its end record", cut);

        Assert.Null(ShardSnapshotFile.Read(new MemoryStream(bytes[..^1]), 9, out var torn));
        Assert.StartsWith($"a record at byte {bytes.Length - endRecord} is cut short", torn);

        Assert.Null(ShardSnapshotFile.Read(new MemoryStream(bytes), 10, out var other));
        Assert.Equal("the file is a Snapshot file of shard 9, not a snapshot of shard 10", other);

        Assert.NotNull(ShardSnapshotFile.Read(new MemoryStream(bytes), 9, out var whole));
        Assert.Null(whole);
    }
}
