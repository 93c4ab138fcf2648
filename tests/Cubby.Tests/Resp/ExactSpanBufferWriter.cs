using System.Buffers;

namespace Cubby.Tests.Resp;

/// <summary>
/// An output that hands out spans exactly as large as asked (one byte when asked for none), so a writer that
/// assumed spare room, or wrote more than it asked for, would fail.
/// </summary>
internal sealed class ExactSpanBufferWriter : IBufferWriter<byte>
{
    private readonly List<byte> _written = [];
    private byte[] _current = [];

    public byte[] Written => [.. _written];

    public int Spans { get; private set; }

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        _current = new byte[Math.Max(sizeHint, 1)];
        Spans++;
        return _current;
    }

    public Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;

    public void Advance(int count)
    {
        Assert.InRange(count, 0, _current.Length);
        _written.AddRange(_current.AsSpan(0, count));
        _current = [];
    }
}
