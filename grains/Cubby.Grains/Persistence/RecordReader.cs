using System.Buffers.Binary;

namespace Cubby.Grains.Persistence;

/// <summary>
/// Reads a file of records (<see cref="RecordFormat"/>) up to its end or its first record that is cut short or damaged;
/// <see cref="Problem"/> then says which, and where, for the log line that names the file.
/// </summary>
internal sealed class RecordReader
{
    private readonly Stream _stream;
    private readonly byte[] _head = new byte[RecordFormat.RecordHeaderBytes];

    private RecordReader(Stream stream, RecordFileKind kind, int slot)
    {
        _stream = stream;
        Kind = kind;
        Slot = slot;
        Offset = RecordFormat.HeaderBytes;
    }

    public RecordFileKind Kind { get; }

    public int Slot { get; }

    /// <summary>Where the next record starts: after the last good one.</summary>
    public long Offset { get; private set; }

    /// <summary>Why reading stopped before the end of the file; null while it has not, or when the file ended cleanly.</summary>
    public string? Problem { get; private set; }

    /// <summary>
    /// A reader of <paramref name="stream"/> after its header, or null when the header is not a good one of this format
    /// (<paramref name="problem"/> says how).
    /// </summary>
    public static RecordReader? Open(Stream stream, out string? problem)
    {
        Span<byte> header = stackalloc byte[RecordFormat.HeaderBytes];
        var read = stream.ReadAtLeast(header, header.Length, throwOnEndOfStream: false);
        problem = read < header.Length ? $"the file is {read} bytes, shorter than its {header.Length}-byte header"
            : !header.StartsWith(RecordFormat.Magic) ? "the file does not start as a Cubby record file"
            : BinaryPrimitives.ReadUInt32LittleEndian(header[16..]) != RecordFormat.Checksum(header[..16]) ? "the file's header fails its checksum"
            : BinaryPrimitives.ReadUInt16LittleEndian(header[8..]) is var version && version != RecordFormat.Version ? $"the file is of format version {version}; this silo reads {RecordFormat.Version}"
            : !Enum.IsDefined((RecordFileKind)header[10]) ? $"the file is of unknown kind {header[10]}"
            : null;
        return problem is null ? new RecordReader(stream, (RecordFileKind)header[10], BinaryPrimitives.ReadInt32LittleEndian(header[12..])) : null;
    }

    /// <summary>The next record; false at the end of the file, or at a record cut short or damaged (<see cref="Problem"/>).</summary>
    public bool TryRead(out byte kind, out byte[] payload)
    {
        (kind, payload) = (0, []);
        if (Problem is not null)
        {
            return false;
        }

        var read = _stream.ReadAtLeast(_head, _head.Length, throwOnEndOfStream: false);
        if (read == 0)
        {
            return false;
        }

        if (read < _head.Length)
        {
            return Stop($"a record at byte {Offset} is cut short in its header");
        }

        var length = BinaryPrimitives.ReadUInt32LittleEndian(_head);
        if (length > RecordFormat.MaxPayloadBytes)
        {
            return Stop($"a record at byte {Offset} gives a length of {length} bytes, over the {RecordFormat.MaxPayloadBytes} a record may have");
        }

        var body = new byte[length];
        if (_stream.ReadAtLeast(body, body.Length, throwOnEndOfStream: false) < body.Length)
        {
            return Stop($"a record at byte {Offset} is cut short: {length} bytes of payload expected");
        }

        if (BinaryPrimitives.ReadUInt32LittleEndian(_head.AsSpan(5)) != RecordFormat.RecordChecksum(_head.AsSpan(0, 5), body))
        {
            return Stop($"a record at byte {Offset} fails its checksum");
        }

        (kind, payload) = (_head[4], body);
        Offset += RecordFormat.RecordHeaderBytes + length;
        return true;
    }

    private bool Stop(string problem)
    {
        Problem = problem;
        return false;
    }
}
