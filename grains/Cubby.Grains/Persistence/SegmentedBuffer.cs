namespace Cubby.Grains.Persistence;

/// <summary>
/// Bytes appended into segments of 1 MiB, kept for the next appends once written out: a changes file's buffer holds
/// what a silo appends between two writes (a few megabytes), which a single array would copy each time it doubled.
/// Its own spare segments, not the shared pool's: that pool keeps few arrays this large, so a busy silo took fresh
/// ones, and the kernel faulted in and zeroed their pages, on every write. Not thread-safe: its owner locks.
/// </summary>
internal sealed class SegmentedBuffer
{
    private const int SegmentBytes = 1 << 20;

    /// <summary>The most spare segments kept: more than a write ahead of the file fills (<c>ChangesLog</c>).</summary>
    private const int MaxSpare = 8;

    private readonly List<(byte[] Array, int Used)> _full = [];
    private readonly Stack<byte[]> _spare = new();
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

            _current = size <= SegmentBytes && _spare.TryPop(out var spare) ? spare : GC.AllocateUninitializedArray<byte>(Math.Max(SegmentBytes, size));
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

    /// <summary>Forgets what was appended; the segments are kept for the next appends, up to <see cref="MaxSpare"/>.</summary>
    public void Clear()
    {
        foreach (var (array, _) in _full)
        {
            if (array.Length == SegmentBytes && _spare.Count < MaxSpare)
            {
                _spare.Push(array);
            }
        }

        _full.Clear();
        _used = 0;
        Length = 0;
    }
}
