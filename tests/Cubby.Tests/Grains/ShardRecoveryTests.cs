using System.Text;
using Cubby.Grains;
using Cubby.Grains.Persistence;
using Cubby.Grains.Replication;
using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

/// <summary>
/// A shard rebuilt from its snapshot file and the changes file's records, as a silo does when it starts: which base the
/// changes apply to, which changes apply, and what a shard that left, began without its snapshot, or lost records is.
/// </summary>
public sealed class ShardRecoveryTests : IDisposable
{
    private readonly MigrationPair _pair = new(StoreKind.Native, StoreKind.Native);

    public void Dispose() => _pair.Dispose();

    [Fact]
    public void Changes_after_an_empty_beginning_rebuild_the_shard_and_only_those_of_its_epoch_after_its_sequence_apply()
    {
        using var recovery = new ShardRecovery(Create, null);
        recovery.Began(epoch: 5, sequence: 0, empty: true);
        recovery.Batch(5, Upserts(1, (0, "a"), (1, "b"), (2, "c")));
        recovery.Batch(5, new ReplicaBatch(2, false, null, [MigrationPair.Bytes(MigrationPair.KeyOf(1))]));
        recovery.Batch(4, Upserts(3, (3, "another epoch")));
        recovery.Batch(5, Upserts(2, (4, "not after the last")));

        Assert.True(recovery.Changed);
        Assert.Equal(new Dictionary<int, string?> { [0] = "a", [1] = null, [2] = "c", [3] = null, [4] = null }, Keys(recovery.Finish(), 5, 2, 0, 1, 2, 3, 4));
    }

    [Fact]
    public void A_shard_that_began_with_entries_is_its_snapshot_once_saved_and_the_changes_after_it()
    {
        using var recovery = new ShardRecovery(Create, Snapshot(7, 10, (0, "in the snapshot")));
        recovery.Began(7, 3, empty: false);
        recovery.Batch(7, Upserts(9, (1, "in the snapshot's sequence")));
        recovery.Batch(7, Upserts(11, (2, "after it")));
        recovery.Saved(7, 10);

        Assert.Equal(new Dictionary<int, string?> { [0] = "in the snapshot", [1] = null, [2] = "after it" }, Keys(recovery.Finish(), 7, 11, 0, 1, 2));
    }

    [Fact]
    public void A_shard_that_began_with_entries_and_whose_snapshot_never_came_is_what_it_was_before()
    {
        using var recovery = new ShardRecovery(Create, Snapshot(3, 4, (0, "before")));
        recovery.Began(8, 0, empty: false);
        recovery.Batch(8, Upserts(1, (1, "on entries no record holds")));
        recovery.Saved(8, 0);

        Assert.Equal(new Dictionary<int, string?> { [0] = "before", [1] = null }, Keys(recovery.Finish(), 3, 4, 0, 1));
    }

    [Fact]
    public void A_shard_that_began_from_its_file_as_it_stands_is_that_file_and_the_changes_after_it()
    {
        using var recovery = new ShardRecovery(Create, Snapshot(3, 4, (0, "in the file"), (1, "replaced")));
        recovery.BeganFromFile(8, 2, fileEpoch: 3, fileSequence: 4);
        recovery.Batch(8, Upserts(2, (2, "not after the beginning")));
        recovery.Batch(8, Upserts(3, (1, "after it")));

        Assert.True(recovery.Changed);
        Assert.Equal(new Dictionary<int, string?> { [0] = "in the file", [1] = "after it", [2] = null }, Keys(recovery.Finish(), 8, 3, 0, 1, 2));
    }

    [Fact]
    public void A_beginning_from_a_file_the_history_has_moved_past_is_one_whose_snapshot_never_came()
    {
        // Records after the file changed the shard: the beginning does not name what it held, so the changes after it
        // have no base here, and the shard is what it was before it began.
        using var recovery = new ShardRecovery(Create, Snapshot(3, 4, (0, "in the file")));
        recovery.Batch(3, Upserts(5, (1, "since the file")));
        recovery.BeganFromFile(8, 5, fileEpoch: 3, fileSequence: 4);
        recovery.Batch(8, Upserts(6, (2, "on a base no record holds")));

        Assert.Equal(new Dictionary<int, string?> { [0] = "in the file", [1] = "since the file", [2] = null }, Keys(recovery.Finish(), 3, 5, 0, 1, 2));
    }

    [Fact]
    public void A_shard_that_began_empty_and_took_no_change_leaves_what_it_was()
    {
        // As when it activated while every silo stopped, finding no copy: an empty copy at a later epoch says nothing.
        using var recovery = new ShardRecovery(Create, Snapshot(3, 4, (0, "before")));
        recovery.Began(9, 0, empty: true);
        recovery.Began(10, 0, empty: true);
        Assert.Equal(new Dictionary<int, string?> { [0] = "before" }, Keys(recovery.Finish(), 3, 4, 0));

        using var nothing = new ShardRecovery(Create, null);
        nothing.Began(9, 0, empty: true);
        Assert.Null(nothing.Finish().Shard);
    }

    [Fact]
    public void A_shard_that_left_is_not_kept()
    {
        using var recovery = new ShardRecovery(Create, Snapshot(3, 4, (0, "before")));
        recovery.Batch(3, Upserts(5, (1, "changed")));
        recovery.Left();

        Assert.Null(recovery.Finish().Shard);
    }

    [Fact]
    public void After_a_gap_changes_wait_for_a_new_beginning()
    {
        using var recovery = new ShardRecovery(Create, Snapshot(5, 1, (0, "base"))) { Gapped = true };
        recovery.Batch(5, Upserts(2, (1, "after the gap")));
        Assert.Equal(new Dictionary<int, string?> { [0] = "base", [1] = null }, Keys(recovery.Finish(), 5, 1, 0, 1));

        using var begun = new ShardRecovery(Create, Snapshot(5, 1, (0, "base"))) { Gapped = true };
        begun.Began(6, 0, empty: true);
        begun.Batch(6, Upserts(1, (2, "after a new beginning")));
        Assert.Equal(new Dictionary<int, string?> { [0] = null, [2] = "after a new beginning" }, Keys(begun.Finish(), 6, 1, 0, 2));
    }

    [Fact]
    public void A_snapshot_later_than_the_records_of_its_epoch_wins_over_them()
    {
        // The changes file stopped taking records (a full disk); the snapshot was written as the silo stopped.
        using var recovery = new ShardRecovery(Create, Snapshot(5, 20, (0, "written last")));
        recovery.Began(5, 0, empty: true);
        recovery.Batch(5, Upserts(1, (1, "only in the records")));

        Assert.Equal(new Dictionary<int, string?> { [0] = "written last", [1] = null }, Keys(recovery.Finish(), 5, 20, 0, 1));
    }

    [Fact]
    public void A_batch_record_reads_back_as_it_was_written()
    {
        var batch = new ReplicaBatch(42, true, [1, 2, 3], [[9], [], [7, 7]]);
        var payload = new byte[ChangeRecords.SizeOf(batch)];
        ChangeRecords.WriteBatch(payload, slot: 12, epoch: 34, batch);

        Assert.Equal((12, 34L, 42L), ChangeRecords.ReadStamp(payload));
        var read = ChangeRecords.ReadBatch(payload);
        Assert.Equal((42L, true), (read.Sequence, read.Cleared));
        Assert.Equal([1, 2, 3], read.Upserts);
        Assert.Equal([[9], [], [7, 7]], read.Removed);
        Assert.Throws<InvalidDataException>(() => ChangeRecords.ReadBatch(payload.AsSpan(0, payload.Length - 1)));
    }

    private Shard Create() => _pair.Target.CreateDetached(_pair.MovingSlot);

    /// <summary>A batch setting each key (by index) to its value.</summary>
    private static ReplicaBatch Upserts(long sequence, params (int Key, string Value)[] entries) =>
        new(sequence, false, Chunk(entries), []);

    private static (ShardFileStamp Stamp, List<byte[]> Chunks) Snapshot(long epoch, long sequence, params (int Key, string Value)[] entries) =>
        (new ShardFileStamp(epoch, sequence, 0), [Chunk(entries)]);

    private static byte[] Chunk((int Key, string Value)[] entries)
    {
        using var source = new MigrationPair(StoreKind.Native, StoreKind.Native);
        foreach (var (key, value) in entries)
        {
            MigrationPair.Set(source.Source, MigrationPair.KeyOf(key), MigrationPair.Bytes(value));
        }

        return Assert.Single(MigrationPair.WriteAllChunks(source.Source.Find(source.MovingSlot)!, 1 << 20));
    }

    /// <summary>Checks the rebuilt shard's stamp, and gives each key's value (null: absent).</summary>
    private Dictionary<int, string?> Keys((Shard? Shard, long Epoch, long Sequence) rebuilt, long epoch, long sequence, params int[] keys)
    {
        Assert.Equal((epoch, sequence), (rebuilt.Epoch, rebuilt.Sequence));
        _pair.Target.Attach(_pair.MovingSlot, rebuilt.Shard!);
        var values = keys.ToDictionary(static key => key, key => MigrationPair.Peek(_pair.Target, MigrationPair.KeyOf(key)) is { } found ? Encoding.UTF8.GetString(found.Value) : null);
        _pair.Target.Detach(_pair.MovingSlot, rebuilt.Shard!);
        rebuilt.Shard!.Dispose();
        return values;
    }
}
