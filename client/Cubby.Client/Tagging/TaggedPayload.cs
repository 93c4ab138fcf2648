using System.Buffers;
using System.Buffers.Binary;
using System.Text;

namespace Cubby.Client.Tagging;

/// <summary>
/// The bytes stored for an entry that carries tags (Cubby's HybridCache's entries, and <see cref="ICubbyClient"/>
/// entries written with <see cref="CacheEntryOptions.Tags"/>): a header with the epoch of every tag the entry carries
/// (<see cref="TagEpochs"/>) as it was when the entry was written, then the value. The layout is a marker byte, a
/// version byte, the epoch of <c>"*"</c> (0 when the entry does not carry it), the tag count, each tag as its UTF-8
/// length, bytes and epoch, then the value; numbers are little-endian, lengths 16-bit.
/// </summary>
internal static class TaggedPayload
{
    private const byte Marker = 0xC7;
    private const byte Version = 1;
    private const int FixedBytes = 2 + sizeof(long) + sizeof(ushort);

    /// <summary>Writes the header for <paramref name="tags"/> (with their epochs) into <paramref name="writer"/>.</summary>
    public static void WriteHeader(IBufferWriter<byte> writer, long allEpoch, IReadOnlyList<(string Tag, long Epoch)> tags)
    {
        var span = writer.GetSpan(FixedBytes);
        span[0] = Marker;
        span[1] = Version;
        BinaryPrimitives.WriteInt64LittleEndian(span[2..], allEpoch);
        BinaryPrimitives.WriteUInt16LittleEndian(span[10..], checked((ushort)tags.Count));
        writer.Advance(FixedBytes);
        foreach (var (tag, epoch) in tags)
        {
            var length = Encoding.UTF8.GetByteCount(tag);
            span = writer.GetSpan(sizeof(ushort) + length + sizeof(long));
            BinaryPrimitives.WriteUInt16LittleEndian(span, checked((ushort)length));
            Encoding.UTF8.GetBytes(tag, span[sizeof(ushort)..]);
            BinaryPrimitives.WriteInt64LittleEndian(span[(sizeof(ushort) + length)..], epoch);
            writer.Advance(sizeof(ushort) + length + sizeof(long));
        }
    }

    /// <summary>Where the value starts behind a stored entry's header, reading nothing else; false when the bytes do not start with one.</summary>
    public static bool TryMeasure(ReadOnlySpan<byte> payload, out int valueOffset)
    {
        valueOffset = 0;
        if (payload.Length < FixedBytes || payload[0] != Marker || payload[1] != Version)
        {
            return false;
        }

        var count = BinaryPrimitives.ReadUInt16LittleEndian(payload[10..]);
        var offset = FixedBytes;
        for (var i = 0; i < count; i++)
        {
            if (payload.Length - offset < sizeof(ushort))
            {
                return false;
            }

            var length = BinaryPrimitives.ReadUInt16LittleEndian(payload[offset..]);
            offset += sizeof(ushort);
            if (payload.Length - offset < length + sizeof(long))
            {
                return false;
            }

            offset += length + sizeof(long);
        }

        valueOffset = offset;
        return true;
    }

    /// <summary>Reads a stored entry's header; false when the bytes do not start with one.</summary>
    public static bool TryRead(ReadOnlySpan<byte> payload, out TaggedHeader header)
    {
        header = default;
        if (!TryMeasure(payload, out var valueOffset))
        {
            return false;
        }

        var count = BinaryPrimitives.ReadUInt16LittleEndian(payload[10..]);
        var tags = count == 0 ? [] : new (string, long)[count];
        var offset = FixedBytes;
        for (var i = 0; i < count; i++)
        {
            var length = BinaryPrimitives.ReadUInt16LittleEndian(payload[offset..]);
            offset += sizeof(ushort);
            tags[i] = (Encoding.UTF8.GetString(payload.Slice(offset, length)), BinaryPrimitives.ReadInt64LittleEndian(payload[(offset + length)..]));
            offset += length + sizeof(long);
        }

        header = new TaggedHeader(BinaryPrimitives.ReadInt64LittleEndian(payload[2..]), tags, valueOffset);
        return true;
    }
}

/// <summary>A stored entry's header: the epochs it was written under, and where its value starts.</summary>
internal readonly record struct TaggedHeader(long AllEpoch, (string Tag, long Epoch)[] Tags, int ValueOffset);
