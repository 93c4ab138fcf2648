using System.Buffers;
using System.Buffers.Binary;
using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Grains.Migration;

/// <summary>
/// Writes one migration chunk (see <see cref="MigrationFormat"/>) to a buffer writer: the header when created, entries
/// with <see cref="Append"/>, the trailer with <see cref="Complete"/>. Each entry is written in one piece, so an entry
/// larger than the buffer's current segment asks it for a span big enough.
/// </summary>
internal sealed class MigrationChunkWriter
{
    private readonly IBufferWriter<byte> _output;
    private readonly byte[] _header = new byte[MigrationFormat.HeaderBytes];
    private bool _completed;

    /// <summary>Starts a chunk of <paramref name="slot"/>'s entries by writing its header.</summary>
    public MigrationChunkWriter(IBufferWriter<byte> output, int slot)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentOutOfRangeException.ThrowIfNegative(slot);
        _output = output;
        MigrationFormat.Magic.CopyTo(_header);
        _header[4] = MigrationFormat.Version;
        BinaryPrimitives.WriteUInt32LittleEndian(_header.AsSpan(5), (uint)slot);
        _output.Write(_header);
        BytesWritten = _header.Length;
    }

    /// <summary>Entries appended so far.</summary>
    public int Count { get; private set; }

    /// <summary>Bytes written so far: the header, the entries and, once complete, the trailer.</summary>
    public long BytesWritten { get; private set; }

    /// <summary>The exact bytes <see cref="Append"/> writes for an entry of these sizes and this metadata.</summary>
    public static long MeasureEntry(int keyLength, int valueLength, in EntryMetadata metadata)
    {
        long size = 1 + MigrationFormat.VarintLength((uint)keyLength) + MigrationFormat.VarintLength((uint)valueLength);
        size += metadata.Flags != 0 ? sizeof(uint) : 0;
        size += metadata.ExpiresAt != 0 ? sizeof(long) : 0;
        size += metadata.SlidingWindow != 0 ? MigrationFormat.VarintLength((ulong)metadata.SlidingWindow) : 0;
        size += metadata.AbsoluteDeadline != 0 ? sizeof(long) : 0;
        return size + keyLength + valueLength + MigrationFormat.ChecksumBytes;
    }

    /// <summary>Appends an entry: its key, value, flags and expiry (absolute times, the sliding window and its deadline).</summary>
    /// <exception cref="ArgumentException">The metadata is not one a store can hold (a reader would reject it).</exception>
    public void Append(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, in EntryMetadata metadata)
    {
        if (_completed)
        {
            throw new InvalidOperationException("The chunk is complete.");
        }

        if (MigrationChunkReader.DescribeInvalid(metadata) is { } problem)
        {
            throw new ArgumentException($"The entry's metadata cannot be handed off: {problem}.", nameof(metadata));
        }

        var size = MeasureEntry(key.Length, value.Length, metadata);
        if (size > Array.MaxLength)
        {
            throw new ArgumentException("The entry is too large for a migration chunk.", nameof(value));
        }

        var span = _output.GetSpan((int)size)[..(int)size];
        var kind = metadata.Kind == EntryKind.Hash ? (byte)(MigrationFormat.EntryMarker | MigrationFormat.IsHash) : MigrationFormat.EntryMarker;
        var position = 1;
        position += MigrationFormat.WriteVarint(span[position..], (uint)key.Length);
        position += MigrationFormat.WriteVarint(span[position..], (uint)value.Length);
        if (metadata.Flags != 0)
        {
            kind |= MigrationFormat.HasFlags;
            BinaryPrimitives.WriteUInt32LittleEndian(span[position..], metadata.Flags);
            position += sizeof(uint);
        }

        if (metadata.ExpiresAt != 0)
        {
            kind |= MigrationFormat.HasExpiry;
            BinaryPrimitives.WriteInt64LittleEndian(span[position..], metadata.ExpiresAt);
            position += sizeof(long);
        }

        if (metadata.SlidingWindow != 0)
        {
            kind |= MigrationFormat.Slides;
            position += MigrationFormat.WriteVarint(span[position..], (ulong)metadata.SlidingWindow);
        }

        if (metadata.AbsoluteDeadline != 0)
        {
            kind |= MigrationFormat.HasDeadline;
            BinaryPrimitives.WriteInt64LittleEndian(span[position..], metadata.AbsoluteDeadline);
            position += sizeof(long);
        }

        span[0] = kind;
        key.CopyTo(span[position..]);
        position += key.Length;
        value.CopyTo(span[position..]);
        position += value.Length;
        BinaryPrimitives.WriteUInt32LittleEndian(span[position..], MigrationFormat.Checksum(span[..position]));
        _output.Advance((int)size);
        BytesWritten += size;
        Count++;
    }

    /// <summary>Writes the trailer (the entry count and a checksum over it and the header); the chunk is then whole.</summary>
    public void Complete()
    {
        if (_completed)
        {
            throw new InvalidOperationException("The chunk is already complete.");
        }

        Span<byte> covered = stackalloc byte[MigrationFormat.HeaderBytes + MigrationFormat.MaxTrailerBytes];
        _header.CopyTo(covered);
        var position = _header.Length;
        covered[position++] = MigrationFormat.EndMarker;
        position += MigrationFormat.WriteVarint(covered[position..], (uint)Count);
        var trailer = covered[_header.Length..position];
        var checksum = MigrationFormat.Checksum(covered[..position]);

        var span = _output.GetSpan(trailer.Length + MigrationFormat.ChecksumBytes);
        trailer.CopyTo(span);
        BinaryPrimitives.WriteUInt32LittleEndian(span[trailer.Length..], checksum);
        _output.Advance(trailer.Length + MigrationFormat.ChecksumBytes);
        BytesWritten += trailer.Length + MigrationFormat.ChecksumBytes;
        _completed = true;
    }
}
