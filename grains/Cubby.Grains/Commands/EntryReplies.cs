using System.Buffers;
using Cubby.Grains;
using Cubby.Grains.Storage;
using Cubby.Resp;

namespace Cubby.Grains.Commands;

/// <summary>Writes the value as a bulk string reply, straight from the store inside the grain's turn.</summary>
internal readonly struct BulkReply(RespWriter writer) : IEntryReader
{
    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now) => writer.WriteBulkString(value);
}

/// <summary>Writes CUBBY.GET's reply: value, flags, time to live.</summary>
internal readonly struct CubbyEntryReply(RespWriter writer) : IEntryReader
{
    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        writer.WriteArrayHeader(3);
        writer.WriteBulkString(value);
        writer.WriteInteger(metadata.Flags);
        writer.WriteInteger(metadata.TimeToLive(now));
    }
}

/// <summary>Writes the substring GETRANGE asks for, with Redis's rules for negative and out-of-range indexes.</summary>
internal readonly struct RangeReply(RespWriter writer, long start, long end) : IEntryReader
{
    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        // Both ends counted from the end and crossed: empty, even where clamping both to 0 would select the first byte.
        if (start < 0 && end < 0 && start > end)
        {
            writer.WriteBulkString(ReadOnlySpan<byte>.Empty);
            return;
        }

        long length = value.Length;
        var from = start < 0 ? length + start : start;
        var to = end < 0 ? length + end : end;
        from = Math.Max(from, 0);
        to = Math.Max(to, 0);
        to = Math.Min(to, length - 1);
        if (length == 0 || from > to)
        {
            writer.WriteBulkString(ReadOnlySpan<byte>.Empty);
            return;
        }

        writer.WriteBulkString(value.Slice((int)from, (int)(to - from + 1)));
    }
}

/// <summary>Remembers the value's length (STRLEN).</summary>
internal struct LengthCapture : IEntryReader
{
    public int Length;

    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now) => Length = value.Length;
}

/// <summary>Copies the value aside, for replies that depend on what happens after the read (SET ... GET).</summary>
internal struct ValueCapture(ArrayBufferWriter<byte> buffer) : IEntryReader
{
    public bool Found;

    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        Found = true;
        buffer.ResetWrittenCount();
        buffer.Write(value);
    }
}
