using Cubby.Resp;

namespace Cubby.Silo.Protocol;

/// <summary>Something a connection is sent without asking: a pub/sub message or a tracking invalidation.</summary>
internal abstract record Push
{
    /// <summary>What it holds the connection's <see cref="PushQueue"/> to, its framing included.</summary>
    public abstract long Bytes { get; }

    /// <summary>Writes it in the connection's protocol.</summary>
    public abstract void Write(RespWriter writer);

    /// <summary>The bytes of <paramref name="keys"/> and their framing.</summary>
    protected static long BytesOf(byte[][]? keys) => 64 + (keys?.Sum(static key => key.Length + 16L) ?? 0);

    /// <summary>Writes <paramref name="keys"/> as an array, or a null array for every key.</summary>
    protected static void WriteKeys(RespWriter writer, byte[][]? keys)
    {
        if (keys is null)
        {
            writer.WriteNullArray();
            return;
        }

        writer.WriteArrayHeader(keys.Length);
        foreach (var key in keys)
        {
            writer.WriteBulkString(key);
        }
    }
}

/// <summary>
/// A message published to a channel, shared by every subscriber it is queued for: Redis's <c>message</c>, or its
/// <c>pmessage</c> when <paramref name="Pattern"/>, the subscribed pattern it matched, is set.
/// </summary>
internal sealed record ChannelMessage(byte[] Channel, byte[] Payload, byte[]? Pattern) : Push
{
    public override long Bytes => Channel.Length + Payload.Length + (Pattern?.Length ?? 0) + 64;

    public override void Write(RespWriter writer)
    {
        if (Pattern is { } pattern)
        {
            writer.WritePushHeader(4);
            writer.WriteBulkString("pmessage"u8);
            writer.WriteBulkString(pattern);
        }
        else
        {
            writer.WritePushHeader(3);
            writer.WriteBulkString("message"u8);
        }

        writer.WriteBulkString(Channel);
        writer.WriteBulkString(Payload);
    }
}

/// <summary>
/// Keys a tracking connection read that changed: RESP3's <c>invalidate</c> push, whose keys are null when every key
/// did (FLUSHALL); or, to a connection others redirect their invalidations to, a <c>message</c> on
/// <c>__redis__:invalidate</c> carrying the keys as an array, as Redis sends RESP2 clients.
/// </summary>
internal sealed record Invalidation(byte[][]? Keys, bool Redirected) : Push
{
    public static readonly byte[] Channel = "__redis__:invalidate"u8.ToArray();

    public override long Bytes => BytesOf(Keys);

    public override void Write(RespWriter writer)
    {
        if (Redirected)
        {
            writer.WritePushHeader(3);
            writer.WriteBulkString("message"u8);
            writer.WriteBulkString(Channel);
        }
        else
        {
            writer.WritePushHeader(2);
            writer.WriteBulkString("invalidate"u8);
        }

        WriteKeys(writer, Keys);
    }
}

/// <summary>
/// Redis's <c>tracking-redir-broken</c> push: the connection a RESP3 tracking connection redirects its invalidations to
/// has gone, so an invalidation it was owed had nowhere to go.
/// </summary>
internal sealed record RedirectBroken(long RedirectId) : Push
{
    public override long Bytes => 64;

    public override void Write(RespWriter writer)
    {
        writer.WritePushHeader(2);
        writer.WriteBulkString("tracking-redir-broken"u8);
        writer.WriteInteger(RedirectId);
    }
}
