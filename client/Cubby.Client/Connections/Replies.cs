using System.Buffers;
using System.Text;
using Cubby.Cluster;
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

    public static readonly ReplyParser<ClusterView> View = static (reply, _) =>
    {
        var reader = new SequenceReader<byte>(reply);
        var header = Next(ref reader);
        if (header.Type != RespType.Array || header.ElementCount != 3)
        {
            throw Unexpected(header, "a cluster view");
        }

        var version = Next(ref reader).Integer;
        var slotCount = (int)Next(ref reader).Integer;
        var count = (int)Next(ref reader).ElementCount;
        var silos = new SiloEndpoint[count];
        for (var i = 0; i < count; i++)
        {
            Next(ref reader);
            var id = Encoding.UTF8.GetString(Next(ref reader).Payload);
            var host = Encoding.UTF8.GetString(Next(ref reader).Payload);
            var port = (int)Next(ref reader).Integer;
            silos[i] = new SiloEndpoint(id, host, port);
        }

        return new ClusterView(version, slotCount, silos);
    };

    /// <summary>The view a <c>cubby.view</c> push carries (the push's second element is a CUBBY.VIEW reply), or null for any other push.</summary>
    public static ClusterView? ViewPush(ReadOnlySequence<byte> push)
    {
        var reader = new SequenceReader<byte>(push);
        var header = Next(ref reader);
        if (header.ElementCount != 2)
        {
            return null;
        }

        var kind = Next(ref reader);
        if (kind.Type is not (RespType.BulkString or RespType.SimpleString) || !IsViewPushKind(kind.Payload))
        {
            return null;
        }

        return View(push.Slice(reader.Position), null);
    }

    private static bool IsViewPushKind(ReadOnlySequence<byte> kind)
    {
        Span<byte> name = stackalloc byte[10];
        if (kind.Length != name.Length)
        {
            return false;
        }

        kind.CopyTo(name);
        return name.SequenceEqual("cubby.view"u8);
    }

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
