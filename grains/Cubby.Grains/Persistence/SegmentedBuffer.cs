using System.Buffers;

namespace Cubby.Grains.Persistence;

/// <summary>
/// Bytes appended into pooled segments of 1 MiB: a changes file's buffer holds what a busy silo appends between two
/// flushes (tens of megabytes), and a single array would be copied each time it doubled, and land on the large object
/// heap each time. Not thread-safe: its owner locks.
/// </summary>
internal sealed class SegmentedBuffer
{
    private const int SegmentBytes = 1 << 20;

    private readonly List<(byte[] Array, int Used)> _full = [];
    private byte[]? _current;
    private int _used;

    /// <summary>How many bytes were appended since the last <see cref="Clear"/>.</summary>
    public long Length { get; private set; }

    /// <summary>Room for <paramref name="size"/> bytes, in one piece; <see cref="Advance"/> keeps what was written there.</summary>
    public Span<byte> GetSpan(int size)
    {
        if (_current is null || _used + size > _current.Length)
        {
            if (_current is not null)
            {
                _full.Add((_current, _used));
            }

            _current = ArrayPool<byte>.Shared.Rent(Math.Max(SegmentBytes, size));
            _used = 0;
        }

        return _current.AsSpan(_used, size);
    }

    public void Advance(int size)
    {
        _used += size;
        Length += size;
    }

    /// <summary>Writes every byte appended, in order.</summary>
    public void WriteTo(Stream stream)
    {
        foreach (var (array, used) in _full)
        {
            stream.Write(array, 0, used);
        }

        if (_current is not null)
        {
            stream.Write(_current, 0, _used);
        }
    }

    /// <summary>Forgets what was appended; the segments go back to the pool, but one, kept for the next appends.</summary>
    public void Clear()
    {
        foreach (var (array, _) in _full)
        {
            ArrayPool<byte>.Shared.Return(array);
        }

        _full.Clear();
        _used = 0;
        Length = 0;
    }
}
