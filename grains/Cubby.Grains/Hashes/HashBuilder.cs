using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace Cubby.Grains.Hashes;

/// <summary>Writes the encoding <see cref="HashFields"/> reads, field by field, into a reusable buffer.</summary>
internal ref struct HashBuilder
{
    private readonly ArrayBufferWriter<byte> _output;
    private int _count;

    /// <param name="output">Emptied, then written; <see cref="Finish"/> gives the encoding.</param>
    public HashBuilder(ArrayBufferWriter<byte> output)
    {
        _output = output;
        _output.ResetWrittenCount();
        _output.GetSpan(sizeof(int));
        _output.Advance(sizeof(int));
    }

    public void Add(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value)
    {
        Write(field);
        Write(value);
        _count++;
    }

    /// <summary>The encoding; empty when no field was added, which means the hash is gone.</summary>
    public readonly ReadOnlySpan<byte> Finish()
    {
        if (_count == 0)
        {
            return default;
        }

        var written = MemoryMarshal.AsMemory(_output.WrittenMemory).Span;
        BinaryPrimitives.WriteInt32LittleEndian(written, _count);
        return written;
    }

    private readonly void Write(ReadOnlySpan<byte> bytes)
    {
        var span = _output.GetSpan(5 + bytes.Length);
        var length = (uint)bytes.Length;
        var used = 0;
        while (length >= 0x80)
        {
            span[used++] = (byte)(length | 0x80);
            length >>= 7;
        }

        span[used++] = (byte)length;
        bytes.CopyTo(span[used..]);
        _output.Advance(used + bytes.Length);
    }
}
