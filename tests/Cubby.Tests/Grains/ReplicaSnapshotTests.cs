using System.Globalization;
using System.Text;
using Cubby.Grains.Migration;

namespace Cubby.Tests.Grains;

/// <summary>
/// A replica's snapshot (<see cref="Cubby.Grains.Shard.SnapshotAsync"/>) takes the shard's turn one chunk at a time: writers
/// run between chunks instead of waiting for the whole shard's copy, and every entry that stays is in the snapshot.
/// </summary>
public sealed class ReplicaSnapshotTests
{
    private const int Entries = 4_000;
    private const int ValueBytes = 2_000;
    private const int ChunkBytes = 64 * 1024;

    /// <summary>
    /// A writer overwrites the entries in turn, each with the number of its write, while the snapshot runs. Taken in one
    /// turn, the snapshot would show every write up to some moment and none after: whatever later write it shows, every
    /// earlier one would show too (or one after it on the same key). Taken a chunk at a time, it shows a later write
    /// on an entry copied late while an entry copied early still holds its value from before an earlier write.
    /// </summary>
    [Fact]
    public async Task Writers_run_between_the_chunks_of_a_snapshot_and_no_entry_that_stays_is_missed()
    {
        using var host = new SingleGrain(maxMemoryBytes: 1L << 26, heldByCreator: false);
        for (var i = 0; i < Entries; i++)
        {
            host.Set(KeyOf(i), ValueOf(-1));
        }

        var snapshot = Task.Run(() => host.Grain.SnapshotAsync(ChunkBytes));
        var writes = 0;
        while (!snapshot.IsCompleted)
        {
            host.Set(KeyOf(writes % Entries), ValueOf(writes));
            writes++;
        }

        var (chunks, _, _) = await snapshot;
        var shown = new Dictionary<string, int>();
        foreach (var chunk in chunks)
        {
            var reader = new MigrationChunkReader(chunk);
            while (reader.TryRead(out var entry))
            {
                shown[Encoding.UTF8.GetString(entry.Key)] = int.Parse(Encoding.UTF8.GetString(entry.Value).TrimEnd('.'), CultureInfo.InvariantCulture);
            }
        }

        Assert.True(chunks.Length >= Entries * ValueBytes / ChunkBytes, $"{chunks.Length} chunks");
        Assert.All(Enumerable.Range(0, Entries), i => Assert.True(shown.ContainsKey(KeyOf(i)), $"{KeyOf(i)} is not in the snapshot"));
        var latest = shown.Values.Max();
        var missedEarlier = Enumerable.Range(0, Math.Max(0, latest)).Count(write => shown[KeyOf(write % Entries)] < write);
        Assert.True(missedEarlier > 0, $"the snapshot shows write {latest} and every write before it: it was taken in one turn ({writes} writes during it, {chunks.Length} chunks)");
    }

    private static string KeyOf(int index) => $"kept:{index}";

    private static string ValueOf(int write) => write.ToString(CultureInfo.InvariantCulture).PadRight(ValueBytes, '.');
}
