using System.Buffers;
using System.Buffers.Binary;
using Cubby.Grains.Replication;

namespace Cubby.Grains.Persistence;

/// <summary>
/// The records of a silo's changes file (<see cref="ChangesLog"/>), each naming its shard, the epoch of the primary that
/// wrote it and a sequence number: what a shard's turns changed (<see cref="Batch"/>, a <see cref="ReplicaBatch"/>), a
/// shard beginning as primary here (<see cref="Began"/>), its snapshot written (<see cref="Saved"/>), and the shard
/// leaving this silo (<see cref="Left"/>). See docs/persistence.md.
/// </summary>
internal static class ChangeRecords
{
    /// <summary>A batch of changes, sealed at the end of a turn: each changed key's state then, or its removal.</summary>
    public const byte Batch = 1;

    /// <summary>The shard became primary here at this epoch and sequence, empty, or with entries its snapshot will hold.</summary>
    public const byte Began = 2;

    /// <summary>The shard's snapshot file, stamped with this epoch and sequence, is on disk.</summary>
    public const byte Saved = 3;

    /// <summary>The shard left this silo (it moved, its file went with it).</summary>
    public const byte Left = 4;

    /// <summary>Slot, epoch and sequence, at the start of every record.</summary>
    public const int StampBytes = sizeof(int) + (2 * sizeof(long));

    // How a shard began, the byte after a Began record's stamp.
    private const byte BeganWithEntriesMark = 0;
    private const byte BeganEmptyMark = 1;
    private const byte BeganFromFileMark = 2;

    /// <summary>The size of <paramref name="batch"/>'s record payload.</summary>
    public static int SizeOf(ReplicaBatch batch) => SizeOf(batch.Upserts?.Length ?? 0, batch.Removed);

    /// <summary>The size of the record payload of a batch of <paramref name="upsertBytes"/> and <paramref name="removed"/>.</summary>
    public static int SizeOf(int upsertBytes, byte[][] removed)
    {
        var size = StampBytes + 1 + sizeof(int) + upsertBytes + sizeof(int);
        foreach (var key in removed)
        {
            size += sizeof(int) + key.Length;
        }

        return size;
    }

    /// <summary>Writes <paramref name="batch"/>'s record payload to <paramref name="destination"/> (<see cref="SizeOf(ReplicaBatch)"/> bytes).</summary>
    public static void WriteBatch(Span<byte> destination, int slot, long epoch, ReplicaBatch batch) =>
        WriteBatch(destination, slot, epoch, batch.Sequence, batch.Cleared, batch.Upserts, batch.Removed);

    /// <summary>
    /// Writes a batch's record payload to <paramref name="destination"/> (<see cref="SizeOf(int, byte[][])"/> bytes): the
    /// stamp, whether the shard was emptied first, the upserts (a migration chunk) and the removed keys.
    /// </summary>
    public static void WriteBatch(Span<byte> destination, int slot, long epoch, long sequence, bool cleared, ReadOnlySpan<byte> upserts, byte[][] removed)
    {
        var at = WriteStamp(destination, slot, epoch, sequence);
        destination[at++] = cleared ? (byte)1 : (byte)0;
        BinaryPrimitives.WriteInt32LittleEndian(destination[at..], upserts.Length);
        upserts.CopyTo(destination[(at += sizeof(int))..]);
        at += upserts.Length;
        BinaryPrimitives.WriteInt32LittleEndian(destination[at..], removed.Length);
        at += sizeof(int);
        foreach (var key in removed)
        {
            BinaryPrimitives.WriteInt32LittleEndian(destination[at..], key.Length);
            key.CopyTo(destination[(at += sizeof(int))..]);
            at += key.Length;
        }
    }

    /// <summary>A <see cref="Began"/> record's payload: the shard began empty, or with entries its next snapshot holds.</summary>
    public static byte[] BeganPayload(int slot, long epoch, long sequence, bool empty)
    {
        var payload = new byte[StampBytes + 1];
        WriteStamp(payload, slot, epoch, sequence);
        payload[StampBytes] = empty ? BeganEmptyMark : BeganWithEntriesMark;
        return payload;
    }

    /// <summary>
    /// A <see cref="Began"/> record's payload for a shard that began with exactly the entries of its snapshot file as it
    /// stands, stamped <paramref name="fileEpoch"/> and <paramref name="fileSequence"/>: no new snapshot follows.
    /// </summary>
    public static byte[] BeganFromFilePayload(int slot, long epoch, long sequence, long fileEpoch, long fileSequence)
    {
        var payload = new byte[StampBytes + 1 + (2 * sizeof(long))];
        WriteStamp(payload, slot, epoch, sequence);
        payload[StampBytes] = BeganFromFileMark;
        BinaryPrimitives.WriteInt64LittleEndian(payload.AsSpan(StampBytes + 1), fileEpoch);
        BinaryPrimitives.WriteInt64LittleEndian(payload.AsSpan(StampBytes + 1 + sizeof(long)), fileSequence);
        return payload;
    }

    /// <summary>The stamp of the snapshot file a <see cref="Began"/> record says the shard began from; null when it began otherwise.</summary>
    public static (long Epoch, long Sequence)? BeganFromFile(ReadOnlySpan<byte> payload) =>
        payload.Length >= StampBytes + 1 + (2 * sizeof(long)) && payload[StampBytes] == BeganFromFileMark
            ? (BinaryPrimitives.ReadInt64LittleEndian(payload[(StampBytes + 1)..]), BinaryPrimitives.ReadInt64LittleEndian(payload[(StampBytes + 1 + sizeof(long))..]))
            : null;

    /// <summary>A <see cref="Saved"/> or <see cref="Left"/> record's payload.</summary>
    public static byte[] StampPayload(int slot, long epoch, long sequence)
    {
        var payload = new byte[StampBytes];
        WriteStamp(payload, slot, epoch, sequence);
        return payload;
    }

    /// <summary>The slot, epoch and sequence a record's payload starts with.</summary>
    /// <exception cref="InvalidDataException">The payload is shorter than a stamp.</exception>
    public static (int Slot, long Epoch, long Sequence) ReadStamp(ReadOnlySpan<byte> payload)
    {
        if (payload.Length < StampBytes)
        {
            throw new InvalidDataException($"a change record of {payload.Length} bytes is shorter than its stamp ({StampBytes} bytes)");
        }

        return (BinaryPrimitives.ReadInt32LittleEndian(payload), BinaryPrimitives.ReadInt64LittleEndian(payload[4..]), BinaryPrimitives.ReadInt64LittleEndian(payload[12..]));
    }

    /// <summary>Whether a <see cref="Began"/> record says the shard began empty.</summary>
    public static bool BeganEmpty(ReadOnlySpan<byte> payload) => payload.Length > StampBytes && payload[StampBytes] == BeganEmptyMark;

    /// <summary>The batch a <see cref="Batch"/> record holds.</summary>
    /// <exception cref="InvalidDataException">Its lengths do not fit the payload.</exception>
    public static ReplicaBatch ReadBatch(ReadOnlySpan<byte> payload)
    {
        var (_, _, sequence) = ReadStamp(payload);
        var reader = new SequenceReader<byte>(new ReadOnlySequence<byte>(payload[StampBytes..].ToArray()));
        if (!reader.TryRead(out var cleared) || !reader.TryReadLittleEndian(out int upsertBytes) || upsertBytes < 0 || upsertBytes > reader.Remaining)
        {
            throw new InvalidDataException("a change record's upserts do not fit in it");
        }

        var upserts = upsertBytes == 0 ? null : reader.UnreadSequence.Slice(0, upsertBytes).ToArray();
        reader.Advance(upsertBytes);
        if (!reader.TryReadLittleEndian(out int removedCount) || removedCount < 0 || removedCount > reader.Remaining / sizeof(int))
        {
            throw new InvalidDataException("a change record's removed keys do not fit in it");
        }

        var removed = new byte[removedCount][];
        for (var i = 0; i < removedCount; i++)
        {
            if (!reader.TryReadLittleEndian(out int keyBytes) || keyBytes < 0 || keyBytes > reader.Remaining)
            {
                throw new InvalidDataException("a change record's removed key does not fit in it");
            }

            removed[i] = reader.UnreadSequence.Slice(0, keyBytes).ToArray();
            reader.Advance(keyBytes);
        }

        return new ReplicaBatch(sequence, cleared == 1, upserts, removed);
    }

    private static int WriteStamp(Span<byte> destination, int slot, long epoch, long sequence)
    {
        BinaryPrimitives.WriteInt32LittleEndian(destination, slot);
        BinaryPrimitives.WriteInt64LittleEndian(destination[4..], epoch);
        BinaryPrimitives.WriteInt64LittleEndian(destination[12..], sequence);
        return StampBytes;
    }
}
