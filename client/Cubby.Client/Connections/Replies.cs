using System.Buffers;
using System.Text;
using Cubby.Resp;

namespace Cubby.Client.Connections;

/// <summary>The reply shapes the client reads, parsed straight from the receive buffer.</summary>
internal static class Replies
{
    private static readonly RespLimits Limits = new() { MaxBulkBytes = Array.MaxLength, MaxArrayLength = Array.MaxLength };

    public static readonly ReplyParser<bool> Ok = static (reply, _) =>
    {
        var reader = new SequenceReader<byte>(reply);
        var item = Next(ref reader);
        return item.Type == RespType.SimpleString ? true : throw Unexpected(item, "+OK");
    };

    public static readonly ReplyParser<long> Integer = static (reply, _) =>
    {
        var reader = new SequenceReader<byte>(reply);
        var item = Next(ref reader);
        return item.Type == RespType.Integer ? item.Integer : throw Unexpected(item, "an integer");
    };

    /// <summary>CUBBY.GET's reply: absent, or value, flags and time to live.</summary>
    public static readonly ReplyParser<EntryReply> Entry = static (reply, destination) =>
    {
        var reader = new SequenceReader<byte>(reply);
        var header = Next(ref reader);
        if (header.IsNull)
        {
            return default;
        }

        if (header.Type != RespType.Array || header.ElementCount != 3)
        {
            throw Unexpected(header, "an array of value, flags and time to live");
        }

        var value = Next(ref reader);
        var flags = (CacheEntryFlags)(uint)Next(ref reader).Integer;
        var ttl = Next(ref reader).Integer;
        if (destination is IBufferWriter<byte> writer && !flags.HasFlag(CacheEntryFlags.Compressed))
        {
            foreach (var segment in value.Payload)
            {
                writer.Write(segment.Span);
            }

            return new EntryReply(true, null, flags, ttl);
        }

        return new EntryReply(true, value.Payload.ToArray(), flags, ttl);
    };

    /// <summary>
    /// CUBBY.OWNER's reply: an array of the key's slot (its shard's number) and the RESP endpoint, <c>host:port</c>, of
    /// the silo where that shard is active.
    /// </summary>
    public static readonly ReplyParser<KeyOwner> Owner = static (reply, _) =>
    {
        var reader = new SequenceReader<byte>(reply);
        var header = Next(ref reader);
        if (header.Type != RespType.Array || header.ElementCount != 2)
        {
            throw Unexpected(header, "an array of slot and silo");
        }

        var slot = Next(ref reader);
        if (slot.Type != RespType.Integer)
        {
            throw Unexpected(slot, "the slot as an integer");
        }

        var silo = Next(ref reader);
        if (silo.Type is not (RespType.BulkString or RespType.SimpleString) || silo.IsNull)
        {
            throw Unexpected(silo, "the silo as host:port");
        }

        return new KeyOwner((int)slot.Integer, Encoding.UTF8.GetString(silo.Payload));
    };

    public static bool IsPush(ReadOnlySequence<byte> reply) => reply.FirstSpan[0] == (byte)RespType.Push;

    public static void ThrowIfError(ReadOnlySequence<byte> reply)
    {
        var reader = new SequenceReader<byte>(reply);
        Next(ref reader);
    }

    /// <summary>The next item of a reply known to be whole; an error reply becomes a <see cref="CubbyServerException"/>.</summary>
    private static RespItem Next(ref SequenceReader<byte> reader)
    {
        if (RespItemReader.TryRead(ref reader, Limits, out var item, out var error) != RespParseStatus.Complete)
        {
            throw new CubbyConnectionException($"The silo sent a malformed reply: {error ?? "truncated"}");
        }

        if (item.Type is RespType.Error or RespType.BulkError)
        {
            throw new CubbyServerException(Encoding.UTF8.GetString(item.Payload));
        }

        return item;
    }

    private static CubbyConnectionException Unexpected(RespItem item, string expected) =>
        new CubbyConnectionException($"The silo sent {item.Type} where {expected} was expected.");
}

/// <summary>What CUBBY.GET returned: whether the entry exists, its value (unless copied to a destination), flags and time to live.</summary>
internal readonly record struct EntryReply(bool Found, byte[]? Value, CacheEntryFlags Flags, long TimeToLiveMs);
