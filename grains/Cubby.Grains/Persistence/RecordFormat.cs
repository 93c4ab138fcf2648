using System.Buffers.Binary;
using System.IO.Hashing;

namespace Cubby.Grains.Persistence;

/// <summary>
/// The layout of the files a silo keeps its shards in: a header, then records, each checksummed on its own, so that a
/// file cut short by a crash, or damaged, is read up to its last good record. Integers are little-endian.
/// <code>
/// file    = header record*
/// header  = magic "CUBBYREC" (8) | format version (u16) | file kind (u8) | 0 (u8) | slot (i32) | checksum (u32)
/// record  = payload length (u32) | record kind (u8) | checksum (u32) | payload
/// </code>
/// The header's checksum is the low half of the XXH64 of its first 16 bytes; a record's, the low half of the XXH3 of its
/// payload seeded with its length and kind, one pass over the payload with no state to allocate. What a record's
/// payload holds is the file kind's business (<see cref="RecordFileKind"/>).
/// </summary>
internal static class RecordFormat
{
    public const ushort Version = 2;

    public const int HeaderBytes = 8 + 2 + 1 + 1 + 4 + 4;

    public const int RecordHeaderBytes = 4 + 1 + 4;

    /// <summary>
    /// The largest payload a record may have. A length past it is read as damage, not trusted: a flipped bit in a length
    /// must not make a silo allocate gigabytes as it loads.
    /// </summary>
    public const int MaxPayloadBytes = 64 * 1024 * 1024;

    public static ReadOnlySpan<byte> Magic => "CUBBYREC"u8;

    public static void WriteHeader(Span<byte> destination, RecordFileKind kind, int slot)
    {
        Magic.CopyTo(destination);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[8..], Version);
        destination[10] = (byte)kind;
        destination[11] = 0;
        BinaryPrimitives.WriteInt32LittleEndian(destination[12..], slot);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[16..], Checksum(destination[..16]));
    }

    /// <summary>Fills in a record's header for <paramref name="payload"/>, whose bytes follow it.</summary>
    public static void WriteRecordHeader(Span<byte> destination, byte kind, ReadOnlySpan<byte> payload)
    {
        BinaryPrimitives.WriteUInt32LittleEndian(destination, (uint)payload.Length);
        destination[4] = kind;
        BinaryPrimitives.WriteUInt32LittleEndian(destination[5..], RecordChecksum(destination[..5], payload));
    }

    public static uint Checksum(ReadOnlySpan<byte> bytes) => (uint)XxHash64.HashToUInt64(bytes);

    /// <summary>The checksum of a record: of its payload, seeded with its length and kind (<paramref name="head"/>).</summary>
    public static uint RecordChecksum(ReadOnlySpan<byte> head, ReadOnlySpan<byte> payload)
    {
        var seed = BinaryPrimitives.ReadUInt32LittleEndian(head) | ((long)head[4] << 32);
        return (uint)XxHash3.HashToUInt64(payload, seed);
    }
}

/// <summary>What a file of records holds.</summary>
internal enum RecordFileKind : byte
{
    /// <summary>A shard's entries as they were at one moment, written aside and renamed into place whole.</summary>
    Snapshot = 1,

    /// <summary>A shard's changes since its snapshot, appended as they are made.</summary>
    Changes = 2,
}
