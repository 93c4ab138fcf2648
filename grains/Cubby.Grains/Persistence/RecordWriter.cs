namespace Cubby.Grains.Persistence;

/// <summary>Writes a file of records (<see cref="RecordFormat"/>): its header as it is made, then each record appended.</summary>
internal sealed class RecordWriter : IDisposable
{
    private readonly Stream _stream;
    private readonly byte[] _head = new byte[RecordFormat.RecordHeaderBytes];

    public RecordWriter(Stream stream, RecordFileKind kind, int slot)
    {
        _stream = stream;
        Span<byte> header = stackalloc byte[RecordFormat.HeaderBytes];
        RecordFormat.WriteHeader(header, kind, slot);
        _stream.Write(header);
    }

    /// <summary>Appends one record; it reaches the file with the stream's buffer, and the disk on <see cref="Flush"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The payload is over <see cref="RecordFormat.MaxPayloadBytes"/>.</exception>
    public void Append(byte kind, ReadOnlySpan<byte> payload)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(payload.Length, RecordFormat.MaxPayloadBytes, nameof(payload));
        RecordFormat.WriteRecordHeader(_head, kind, payload);
        _stream.Write(_head);
        _stream.Write(payload);
    }

    /// <summary>Writes what is buffered to the file, and, with <paramref name="toDisk"/>, has the file system put it on the disk.</summary>
    public void Flush(bool toDisk)
    {
        if (toDisk && _stream is FileStream file)
        {
            file.Flush(flushToDisk: true);
        }
        else
        {
            _stream.Flush();
        }
    }

    public void Dispose() => _stream.Dispose();
}
