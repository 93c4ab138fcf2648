using System.Buffers;
using Cubby.Grains;
using Cubby.Grains.Hashes;
using Cubby.Grains.Storage;
using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Grains.Commands.Hashes;

/// <summary>HGET: the value of the field at argument 2, or null.</summary>
internal readonly struct FieldReply(RespWriter writer, RespRequest request) : IEntryReader
{
    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        if (new HashFields(value).TryGet(request[2], out var field))
        {
            writer.WriteBulkString(field);
        }
        else
        {
            writer.WriteNull();
        }
    }
}

/// <summary>HMGET: the value of each field from argument 2 on, null for an absent one.</summary>
internal readonly struct FieldsReply(RespWriter writer, RespRequest request) : IEntryReader
{
    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        var fields = new HashFields(value);
        writer.WriteArrayHeader(request.Count - 2);
        for (var i = 2; i < request.Count; i++)
        {
            if (fields.TryGet(request[i], out var field))
            {
                writer.WriteBulkString(field);
            }
            else
            {
                writer.WriteNull();
            }
        }
    }
}

/// <summary>What HGETALL, HKEYS and HVALS list of each field.</summary>
internal enum FieldParts
{
    Names,
    Values,
    Both,
}

/// <summary>HGETALL (a map in RESP3), HKEYS and HVALS, in stored order.</summary>
internal readonly struct AllFieldsReply(RespWriter writer, FieldParts parts) : IEntryReader
{
    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        var fields = new HashFields(value);
        WriteHeader(writer, parts, fields.Count);
        foreach (var entry in fields)
        {
            if (parts != FieldParts.Values)
            {
                writer.WriteBulkString(entry.Field);
            }

            if (parts != FieldParts.Names)
            {
                writer.WriteBulkString(entry.Value);
            }
        }
    }

    /// <summary>The header for <paramref name="count"/> fields; an absent hash is written as one with none.</summary>
    public static void WriteHeader(RespWriter writer, FieldParts parts, int count)
    {
        if (parts != FieldParts.Both)
        {
            writer.WriteArrayHeader(count);
        }
        else if (writer.Version == RespVersion.Resp3)
        {
            writer.WriteMapHeader(count);
        }
        else
        {
            writer.WriteArrayHeader(2 * count);
        }
    }
}

/// <summary>An integer about the hash: HLEN's count, HEXISTS's 1 or 0, HSTRLEN's length of the field at argument 2.</summary>
internal readonly struct HashNumberReply(RespWriter writer, RespRequest request, HashNumber number) : IEntryReader
{
    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        var fields = new HashFields(value);
        writer.WriteInteger(number switch
        {
            HashNumber.Length => fields.Count,
            HashNumber.Exists => fields.Contains(request[2]) ? 1 : 0,
            _ => fields.TryGet(request[2], out var field) ? field.Length : 0,
        });
    }
}

/// <summary>Which integer <see cref="HashNumberReply"/> answers.</summary>
internal enum HashNumber
{
    Length,
    Exists,
    FieldLength,
}

/// <summary>
/// HSCAN: every matching field in one page and cursor 0, as Redis answers for a hash small enough to be stored whole,
/// which every Cubby hash is (one value, at most <c>Cubby:MaxValueBytes</c>).
/// </summary>
internal readonly ref struct ScanFieldsReply(RespWriter writer, ReadOnlySpan<byte> pattern, bool matchAll, bool noValues) : IEntryReader
{
    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        var fields = new HashFields(value);
        var matching = 0;
        foreach (var entry in fields)
        {
            matching += Matches(entry.Field) ? 1 : 0;
        }

        writer.WriteArrayHeader(2);
        writer.WriteBulkString("0"u8);
        writer.WriteArrayHeader(noValues ? matching : 2 * matching);
        foreach (var entry in fields)
        {
            if (Matches(entry.Field))
            {
                writer.WriteBulkString(entry.Field);
                if (!noValues)
                {
                    writer.WriteBulkString(entry.Value);
                }
            }
        }
    }

    private readonly ReadOnlySpan<byte> _pattern = pattern;

    private bool Matches(ReadOnlySpan<byte> field) => matchAll || GlobPattern.IsMatch(_pattern, field);
}

/// <summary>
/// HRANDFIELD: one random field; or, with a count, that many distinct fields (count &gt; 0, at most all of them) or
/// that many picks that may repeat (count &lt; 0); WITHVALUES adds each value (pairs of [field, value] in RESP3).
/// </summary>
internal readonly struct RandomFieldsReply(RespWriter writer, long? count, bool withValues) : IEntryReader
{
    public void Read(ReadOnlySpan<byte> value, in EntryMetadata metadata, long now)
    {
        var fields = new HashFields(value);
        var total = fields.Count;
        if (count is not { } wanted)
        {
            writer.WriteBulkString(Field(fields, Random.Shared.Next(total)).Field);
            return;
        }

        if (wanted < 0)
        {
            WriteHeader(writer, (int)-wanted, withValues);
            for (var i = 0L; i < -wanted; i++)
            {
                WritePick(Field(fields, Random.Shared.Next(total)));
            }

            return;
        }

        // Distinct picks: the first ones of a partial shuffle of the field indexes.
        var picks = (int)Math.Min(wanted, total);
        WriteHeader(writer, picks, withValues);
        var order = ArrayPool<int>.Shared.Rent(total);
        try
        {
            for (var i = 0; i < total; i++)
            {
                order[i] = i;
            }

            for (var i = 0; i < picks; i++)
            {
                var swap = Random.Shared.Next(i, total);
                (order[i], order[swap]) = (order[swap], order[i]);
                WritePick(Field(fields, order[i]));
            }
        }
        finally
        {
            ArrayPool<int>.Shared.Return(order);
        }
    }

    /// <summary>The header for <paramref name="picks"/> fields; an absent hash is answered as one with none picked.</summary>
    public static void WriteHeader(RespWriter writer, int picks, bool withValues) =>
        writer.WriteArrayHeader(withValues && writer.Version != RespVersion.Resp3 ? 2 * picks : picks);

    private void WritePick(HashFields.Entry entry)
    {
        if (withValues && writer.Version == RespVersion.Resp3)
        {
            writer.WriteArrayHeader(2);
        }

        writer.WriteBulkString(entry.Field);
        if (withValues)
        {
            writer.WriteBulkString(entry.Value);
        }
    }

    private static HashFields.Entry Field(HashFields fields, int index)
    {
        foreach (var entry in fields)
        {
            if (index-- == 0)
            {
                return entry;
            }
        }

        throw new ArgumentOutOfRangeException(nameof(index));
    }
}
