using System.Buffers.Binary;

namespace Cubby.Grains.Persistence;

/// <summary>
/// One shard's entries on disk at one moment, as a file of records (<see cref="RecordFormat"/>) written whole
/// (<see cref="WholeFile"/>): a <see cref="Begin"/> record with where the shard stood (its primary's epoch and the last
/// change sealed into the copy), the entries as migration chunks (<see cref="Migration.MigrationFormat"/>, which carries
/// expiry as absolute times), and an <see cref="End"/> record counting the chunks. A file without its end, or whose count
/// differs, is not a snapshot: nothing of it is loaded.
/// </summary>
internal static class ShardSnapshotFile
{
    /// <summary>Record kind: epoch (i64), sequence (i64), when it was taken (Unix ms, i64).</summary>
    public const byte Begin = 1;

    /// <summary>Record kind: one migration chunk.</summary>
    public const byte Chunk = 2;

    /// <summary>Record kind: the number of chunks before it (i32).</summary>
    public const byte End = 3;

    private const int BeginBytes = 3 * sizeof(long);

    /// <summary>Writes shard <paramref name="slot"/>'s <paramref name="chunks"/>, taken at <paramref name="stamp"/>, to <paramref name="path"/>, replacing the file there.</summary>
    public static void Write(string path, int slot, ShardFileStamp stamp, IReadOnlyList<byte[]> chunks)
    {
        WholeFile.Write(path, RecordFileKind.Snapshot, slot, writer =>
        {
            Span<byte> begin = stackalloc byte[BeginBytes];
            BinaryPrimitives.WriteInt64LittleEndian(begin, stamp.Epoch);
            BinaryPrimitives.WriteInt64LittleEndian(begin[8..], stamp.Sequence);
            BinaryPrimitives.WriteInt64LittleEndian(begin[16..], stamp.TakenAt);
            writer.Append(Begin, begin);
            foreach (var chunk in chunks)
            {
                writer.Append(Chunk, chunk);
            }

            Span<byte> end = stackalloc byte[sizeof(int)];
            BinaryPrimitives.WriteInt32LittleEndian(end, chunks.Count);
            writer.Append(End, end);
        });
    }

    /// <summary>
    /// The snapshot in <paramref name="stream"/>, or null with the reason when it is not a whole snapshot of
    /// <paramref name="slot"/> (damaged, cut short, of another shard or kind).
    /// </summary>
    public static (ShardFileStamp Stamp, List<byte[]> Chunks)? Read(Stream stream, int slot, out string? problem)
    {
        var reader = RecordReader.Open(stream, out problem);
        if (reader is null)
        {
            return null;
        }

        if (reader.Kind != RecordFileKind.Snapshot || reader.Slot != slot)
        {
            problem = $"the file is a {reader.Kind} file of shard {reader.Slot}, not a snapshot of shard {slot}";
            return null;
        }

        if (!reader.TryRead(out var kind, out var payload) || kind != Begin || payload.Length != BeginBytes)
        {
            problem = reader.Problem ?? "the snapshot does not start with its begin record";
            return null;
        }

        var stamp = new ShardFileStamp(
            BinaryPrimitives.ReadInt64LittleEndian(payload),
            BinaryPrimitives.ReadInt64LittleEndian(payload.AsSpan(8)),
            BinaryPrimitives.ReadInt64LittleEndian(payload.AsSpan(16)));
        var chunks = new List<byte[]>();
        while (reader.TryRead(out kind, out payload))
        {
            if (kind == Chunk)
            {
                chunks.Add(payload);
                continue;
            }

            problem = kind != End || payload.Length != sizeof(int) ? $"the snapshot has a record of unknown kind {kind} at byte {reader.Offset - payload.Length - RecordFormat.RecordHeaderBytes}"
                : BinaryPrimitives.ReadInt32LittleEndian(payload) != chunks.Count ? $"the snapshot's end counts {BinaryPrimitives.ReadInt32LittleEndian(payload)} chunks, but {chunks.Count} came before it"
                : null;
            return problem is null ? (stamp, chunks) : null;
        }

        problem = reader.Problem ?? "the snapshot ends without its end record";
        return null;
    }
}

/// <summary>
/// Where a shard stood when a copy of it was written: its primary's epoch and the last change sealed into the copy, and
/// when (Unix milliseconds). Of two copies of one shard, the one with the greater epoch, then sequence, is the newer.
/// </summary>
internal readonly record struct ShardFileStamp(long Epoch, long Sequence, long TakenAt);
