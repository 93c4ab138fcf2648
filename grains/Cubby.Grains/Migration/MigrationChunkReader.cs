using System.Buffers.Binary;
using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Grains.Migration;

/// <summary>
/// Walks a migration chunk (see <see cref="MigrationFormat"/>) entry by entry, checking everything before it trusts it:
/// lengths against the bytes left, every entry's checksum, the metadata's invariants, and that the chunk ends with a
/// trailer whose count and checksum match, with nothing after it. Any problem throws an
/// <see cref="InvalidDataException"/> naming it; nothing is read out of bounds.
/// </summary>
internal ref struct MigrationChunkReader
{
    private readonly ReadOnlySpan<byte> _chunk;
    private int _position;
    private bool _ended;

    /// <summary>Reads and checks the chunk's header.</summary>
    public MigrationChunkReader(ReadOnlySpan<byte> chunk)
    {
        _chunk = chunk;
        if (chunk.Length < MigrationFormat.HeaderBytes)
        {
            throw Invalid($"the chunk has {chunk.Length} bytes, fewer than its {MigrationFormat.HeaderBytes}-byte header");
        }

        if (!chunk[..4].SequenceEqual(MigrationFormat.Magic))
        {
            throw Invalid("the chunk does not start with the migration magic \"CBHO\"");
        }

        if (chunk[4] != MigrationFormat.Version)
        {
            throw Invalid($"the chunk has format version {chunk[4]}; only {MigrationFormat.Version} is known");
        }

        var slot = BinaryPrimitives.ReadUInt32LittleEndian(chunk[5..]);
        if (slot > int.MaxValue)
        {
            throw Invalid($"the chunk names slot {slot}");
        }

        Slot = (int)slot;
        _position = MigrationFormat.HeaderBytes;
    }

    /// <summary>The slot whose entries the chunk holds.</summary>
    public int Slot { get; }

    /// <summary>Entries read so far.</summary>
    public int Count { get; private set; }

    /// <summary>Walks a whole chunk without keeping anything: throws if any part of it is invalid.</summary>
    /// <returns>The entries it holds.</returns>
    public static int Validate(ReadOnlySpan<byte> chunk)
    {
        var reader = new MigrationChunkReader(chunk);
        while (reader.TryRead(out _))
        {
        }

        return reader.Count;
    }

    /// <summary>Why a store could not hold this metadata, or null when it could.</summary>
    public static string? DescribeInvalid(in EntryMetadata metadata)
    {
        if (metadata.ExpiresAt < 0 || metadata.SlidingWindow < 0 || metadata.AbsoluteDeadline < 0)
        {
            return "a time or window is negative";
        }

        if (metadata.SlidingWindow != 0 && metadata.ExpiresAt == 0)
        {
            return "a sliding entry has no expiry";
        }

        if (metadata.AbsoluteDeadline != 0 && metadata.SlidingWindow == 0)
        {
            return "an entry that does not slide has a sliding deadline";
        }

        if (metadata.AbsoluteDeadline != 0 && metadata.ExpiresAt > metadata.AbsoluteDeadline)
        {
            return "the expiry is past the sliding deadline";
        }

        return null;
    }

    /// <summary>Reads the next entry; false (after checking the trailer) when the chunk has no more.</summary>
    public bool TryRead(out MigrationEntry entry)
    {
        entry = default;
        if (_ended)
        {
            return false;
        }

        var start = _position;
        var kind = ReadByte("an entry's kind");
        if (kind == MigrationFormat.EndMarker)
        {
            ReadTrailer(start);
            return false;
        }

        if ((kind & MigrationFormat.EntryMarker) == 0 || (kind & ~MigrationFormat.KnownBits) != 0)
        {
            throw Invalid($"entry {Count} at offset {start} has unknown kind 0x{kind:X2}");
        }

        var keyLength = ReadLength("key");
        var valueLength = ReadLength("value");
        var metadata = new EntryMetadata { Kind = (kind & MigrationFormat.IsHash) != 0 ? EntryKind.Hash : EntryKind.String };
        if ((kind & MigrationFormat.HasFlags) != 0)
        {
            metadata.Flags = BinaryPrimitives.ReadUInt32LittleEndian(Take(sizeof(uint), "its flags"));
        }

        if ((kind & MigrationFormat.HasExpiry) != 0)
        {
            metadata.ExpiresAt = ReadTime("expiry");
        }

        if ((kind & MigrationFormat.Slides) != 0)
        {
            var window = ReadVarint("its sliding window");
            metadata.SlidingWindow = window is > 0 and <= long.MaxValue
                ? (long)window
                : throw Invalid($"entry {Count} at offset {start} has sliding window {window}");
        }

        if ((kind & MigrationFormat.HasDeadline) != 0)
        {
            metadata.AbsoluteDeadline = ReadTime("sliding deadline");
        }

        if (DescribeInvalid(metadata) is { } problem)
        {
            throw Invalid($"entry {Count} at offset {start} is inconsistent: {problem}");
        }

        var key = Take(keyLength, "its key");
        var value = Take(valueLength, "its value");
        var covered = _chunk[start.._position];
        var checksum = BinaryPrimitives.ReadUInt32LittleEndian(Take(MigrationFormat.ChecksumBytes, "its checksum"));
        if (checksum != MigrationFormat.Checksum(covered))
        {
            throw Invalid($"entry {Count} at offset {start} fails its checksum");
        }

        entry = new MigrationEntry(key, value, metadata);
        Count++;
        return true;
    }

    private static InvalidDataException Invalid(string problem) => new($"Invalid migration chunk: {problem}.");

    private void ReadTrailer(int start)
    {
        var count = ReadVarint("the trailer's entry count");
        var covered = _position - start;
        var checksum = BinaryPrimitives.ReadUInt32LittleEndian(Take(MigrationFormat.ChecksumBytes, "the trailer's checksum"));

        Span<byte> expected = stackalloc byte[MigrationFormat.HeaderBytes + MigrationFormat.MaxTrailerBytes];
        if (covered > MigrationFormat.MaxTrailerBytes - MigrationFormat.ChecksumBytes)
        {
            throw Invalid($"the trailer at offset {start} has an overlong count");
        }

        _chunk[..MigrationFormat.HeaderBytes].CopyTo(expected);
        _chunk.Slice(start, covered).CopyTo(expected[MigrationFormat.HeaderBytes..]);
        if (checksum != MigrationFormat.Checksum(expected[..(MigrationFormat.HeaderBytes + covered)]))
        {
            throw Invalid($"the trailer at offset {start} fails its checksum");
        }

        if (count != (ulong)Count)
        {
            throw Invalid($"the trailer counts {count} entries but the chunk holds {Count}");
        }

        if (_position != _chunk.Length)
        {
            throw Invalid($"{_chunk.Length - _position} bytes follow the trailer");
        }

        _ended = true;
    }

    private byte ReadByte(string what) => Take(1, what)[0];

    private ReadOnlySpan<byte> Take(int length, string what)
    {
        if (length > _chunk.Length - _position)
        {
            throw Invalid($"truncated: entry {Count} needs {length} bytes for {what} at offset {_position}, but {_chunk.Length - _position} remain");
        }

        var bytes = _chunk.Slice(_position, length);
        _position += length;
        return bytes;
    }

    private int ReadLength(string what)
    {
        var length = ReadVarint($"its {what} length");
        return length <= int.MaxValue ? (int)length : throw Invalid($"entry {Count} has a {what} length of {length}");
    }

    private long ReadTime(string what)
    {
        var time = BinaryPrimitives.ReadInt64LittleEndian(Take(sizeof(long), $"its {what}"));
        return time > 0 ? time : throw Invalid($"entry {Count} has {what} {time}");
    }

    private ulong ReadVarint(string what)
    {
        ulong value = 0;
        for (var shift = 0; shift < 64; shift += 7)
        {
            var next = ReadByte(what);
            if (shift == 63 && next > 1)
            {
                break;
            }

            value |= (ulong)(next & 0x7F) << shift;
            if (next < 0x80)
            {
                return value;
            }
        }

        throw Invalid($"entry {Count} has an overlong varint for {what}");
    }
}
