namespace Cubby.Grains.Migration;

/// <summary>
/// The layout of a migration chunk: the entries of one slot, carried from its old silo to its new one when the shard grain migrates. All integers
/// are little-endian; "varint" is the 7-bit unsigned encoding (low group first).
/// <code>
/// chunk   = header entry* trailer
/// header  = magic "CBHO" (4) | version 1 (1) | slot (u32)
/// entry   = kind (1: 0x80 | field bits) | key length (varint) | value length (varint)
///           | [flags (u32)] | [expires at (i64)] | [sliding window (varint)] | [deadline (i64)]
///           | key | value | checksum (u32: low half of XXH64 of the entry from kind to value)
/// trailer = 0x00 | entry count (varint) | checksum (u32: low half of XXH64 of header, 0x00 and count)
/// </code>
/// Times are absolute Unix milliseconds, so an entry keeps its expiry on a silo whose process started at another time.
/// </summary>
internal static class MigrationFormat
{
    public const byte Version = 1;

    public const int HeaderBytes = 4 + 1 + 4;

    /// <summary>The most bytes a trailer takes: its marker, a five-byte count and the checksum.</summary>
    public const int MaxTrailerBytes = 1 + 5 + 4;

    public const int ChecksumBytes = 4;

    /// <summary>The kind byte of the trailer.</summary>
    public const byte EndMarker = 0x00;

    /// <summary>Set in the kind byte of every entry.</summary>
    public const byte EntryMarker = 0x80;

    public const byte HasFlags = 0x01;

    public const byte HasExpiry = 0x02;

    public const byte Slides = 0x04;

    public const byte HasDeadline = 0x08;

    /// <summary>The value is a hash's encoding, not a string.</summary>
    public const byte IsHash = 0x10;

    public const byte KnownBits = EntryMarker | HasFlags | HasExpiry | Slides | HasDeadline | IsHash;

    public static ReadOnlySpan<byte> Magic => "CBHO"u8;

    public static int VarintLength(ulong value)
    {
        var length = 1;
        while (value >= 0x80)
        {
            value >>= 7;
            length++;
        }

        return length;
    }

    /// <summary>Writes <paramref name="value"/> as a varint at the start of <paramref name="destination"/>; returns the bytes written.</summary>
    public static int WriteVarint(Span<byte> destination, ulong value)
    {
        var written = 0;
        while (value >= 0x80)
        {
            destination[written++] = (byte)(value | 0x80);
            value >>= 7;
        }

        destination[written++] = (byte)value;
        return written;
    }

    public static uint Checksum(ReadOnlySpan<byte> bytes) => (uint)System.IO.Hashing.XxHash64.HashToUInt64(bytes);
}
