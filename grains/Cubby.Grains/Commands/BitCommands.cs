using System.Numerics;
using Cubby.Grains;
using Cubby.Grains.Storage;
using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Grains.Commands;

/// <summary>
/// GETBIT, SETBIT, BITCOUNT and BITPOS on strings, with Redis 7's replies and errors. Bit 0 is the most significant
/// bit of the first byte. Each runs inside its shard's turn, so SETBIT's read and write are one step.
/// </summary>
internal static class BitCommands
{
    private const string BitOffsetOutOfRange = "ERR bit offset is not an integer or out of range";
    private const string BitOutOfRange = "ERR bit is not an integer or out of range";
    private const string BitArgument = "ERR The bit argument must be 1 or 0.";

    public static void GetBit(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key) || !TryBitOffset(context, request[2], out var offset))
        {
            return;
        }

        var reader = new ByteAt(offset / 8);
        context.Shard.Read(key, slide: true, ref reader);
        context.Writer.WriteInteger(BitOf(reader.Byte, offset));
    }

    public static void SetBit(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key) || !TryBitOffset(context, request[2], out var offset))
        {
            return;
        }

        if (!Arguments.TryInt64(context, request[3], out var bit, BitOutOfRange))
        {
            return;
        }

        if (bit is not (0 or 1))
        {
            context.Writer.WriteError(BitOutOfRange);
            return;
        }

        var index = offset / 8;
        if (index >= context.MaxValueBytes)
        {
            context.Writer.WriteError(ErrorText.ValueTooLarge(context.MaxValueBytes));
            return;
        }

        var shard = context.Shard;
        var reader = new ByteAt(index);
        shard.Read(key, slide: false, ref reader);
        var mask = (byte)(0x80 >> (int)(offset % 8));
        var updated = bit == 1 ? (byte)(reader.Byte | mask) : (byte)(reader.Byte & ~mask);
        var status = shard.SetRange(key, index, [updated], out _);
        if (status == UpdateStatus.Ok)
        {
            context.Writer.WriteInteger(BitOf(reader.Byte, offset));
        }
        else
        {
            Writes.ReplyLength(context, status, 0);
        }
    }

    /// <summary>BITCOUNT key [start end [BYTE | BIT]].</summary>
    public static void BitCount(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key) || !TryRange(context, request, 2, out var range))
        {
            return;
        }

        var reader = new BitCounter(range);
        context.Writer.WriteInteger(context.Shard.Read(key, slide: true, ref reader) ? reader.Count : 0);
    }

    /// <summary>BITPOS key bit [start [end [BYTE | BIT]]].</summary>
    public static void BitPos(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key))
        {
            return;
        }

        if (!Arguments.TryInt64(context, request[2], out var bit))
        {
            return;
        }

        if (bit is not (0 or 1))
        {
            context.Writer.WriteError(BitArgument);
            return;
        }

        if (!TryRange(context, request, 3, out var range, startAlone: true))
        {
            return;
        }

        var reader = new BitFinder(range, bit == 1);
        context.Writer.WriteInteger(context.Shard.Read(key, slide: true, ref reader) ? reader.Position : bit == 1 ? -1 : 0);
    }

    private static long BitOf(byte value, long offset) => (value >> (int)(7 - (offset % 8))) & 1;

    private static bool TryBitOffset(CommandContext context, ReadOnlySpan<byte> argument, out long offset)
    {
        if (!Arguments.TryInt64(context, argument, out offset, BitOffsetOutOfRange))
        {
            return false;
        }

        if (offset is < 0 or > uint.MaxValue)
        {
            context.Writer.WriteError(BitOffsetOutOfRange);
            return false;
        }

        return true;
    }

    /// <summary>
    /// Reads the optional [start [end [BYTE | BIT]]] from argument <paramref name="first"/>; BITCOUNT needs both ends or
    /// neither, BITPOS takes a start alone (<paramref name="startAlone"/>).
    /// </summary>
    private static bool TryRange(CommandContext context, RespRequest request, int first, out BitRange range, bool startAlone = false)
    {
        range = BitRange.Whole;
        var count = request.Count - first;
        if (count == 0)
        {
            return true;
        }

        if (count > 3 || (count == 1 && !startAlone))
        {
            context.Writer.WriteError(RedisErrors.Syntax);
            return false;
        }

        var inBits = false;
        if (count == 3)
        {
            if (AsciiIgnoreCaseComparer.IsKeyword(request[first + 2], "BIT"))
            {
                inBits = true;
            }
            else if (!AsciiIgnoreCaseComparer.IsKeyword(request[first + 2], "BYTE"))
            {
                context.Writer.WriteError(RedisErrors.Syntax);
                return false;
            }
        }

        if (!Arguments.TryInt64(context, request[first], out var start))
        {
            return false;
        }

        long end = -1;
        if (count >= 2 && !Arguments.TryInt64(context, request[first + 1], out end))
        {
            return false;
        }

        range = new BitRange(start, end, inBits, EndGiven: count >= 2);
        return true;
    }

    /// <summary>The byte at an index of the value, 0 past its end or when absent.</summary>
    private struct ByteAt(long index) : IEntryReader
    {
        public byte Byte;

        public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now) => Byte = index < value.Length ? value[(int)index] : (byte)0;
    }

    private struct BitCounter(BitRange range) : IEntryReader
    {
        public long Count;

        public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
        {
            // As Redis's BITCOUNT: two negative ends that cross select nothing, where clamping would select the start.
            if (range.Start < 0 && range.End < 0 && range.Start > range.End)
            {
                return;
            }

            if (!range.TryResolve(value.Length, out var first, out var last))
            {
                return;
            }

            for (var bit = first; bit <= last;)
            {
                if (bit % 8 == 0 && bit + 7 <= last)
                {
                    Count += BitOperations.PopCount(value[(int)(bit / 8)]);
                    bit += 8;
                }
                else
                {
                    Count += BitOf(value[(int)(bit / 8)], bit);
                    bit++;
                }
            }
        }
    }

    private struct BitFinder(BitRange range, bool one) : IEntryReader
    {
        public long Position;

        public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
        {
            Position = -1;
            if (!range.TryResolve(value.Length, out var first, out var last))
            {
                return;
            }

            for (var bit = first; bit <= last; bit++)
            {
                if (BitOf(value[(int)(bit / 8)], bit) == (one ? 1 : 0))
                {
                    Position = bit;
                    return;
                }
            }

            // As Redis: looking for a clear bit with no end given, the bits past the string count as clear.
            if (!one && !range.EndGiven)
            {
                Position = last + 1;
            }
        }
    }

    /// <summary>A [start, end] range in bytes or bits, negative indexes counting from the end, as BITCOUNT and BITPOS take it.</summary>
    private readonly record struct BitRange(long Start, long End, bool InBits, bool EndGiven)
    {
        public static BitRange Whole => new(0, -1, false, false);

        /// <summary>The first and last bit of the range within a value of <paramref name="length"/> bytes; false when empty.</summary>
        public bool TryResolve(int length, out long first, out long last)
        {
            // Redis's clamping: negative indexes from the end, then both at least 0 and the end at most the last.
            var size = InBits ? length * 8L : length;
            var from = Math.Max(Start < 0 ? size + Start : Start, 0);
            var to = Math.Min(Math.Max(End < 0 ? size + End : End, 0), size - 1);
            first = InBits ? from : from * 8;
            last = InBits ? to : (to * 8) + 7;
            return size > 0 && from <= to;
        }
    }
}
