using System.Buffers;
using Cubby.Resp;

namespace Cubby.Client.Connections;

/// <summary>Encodes the client's commands into <see cref="CommandBuffer"/>.</summary>
internal static class ClientCommands
{
    public static ReadOnlySpan<byte> Get(string key) => KeyCommand("CUBBY.GET"u8, key);

    public static ReadOnlySpan<byte> Refresh(string key) => KeyCommand("CUBBY.REFRESH"u8, key);

    public static ReadOnlySpan<byte> Exists(string key) => KeyCommand("EXISTS"u8, key);

    public static ReadOnlySpan<byte> Delete(string key) => KeyCommand("DEL"u8, key);

    public static ReadOnlySpan<byte> TimeToLive(string key) => KeyCommand("PTTL"u8, key);

    /// <summary>CUBBY.OWNER key: the key's slot and the silo where its shard is active.</summary>
    public static ReadOnlySpan<byte> Owner(string key) => KeyCommand("CUBBY.OWNER"u8, key);

    /// <summary>CUBBY.SET key value [PXAT ms] [SLIDE ms] [FLAGS n].</summary>
    public static ReadOnlySpan<byte> Set(string key, ReadOnlySequence<byte> value, long expiresAt, long slidingWindow, CacheEntryFlags flags)
    {
        var writer = CommandBuffer.Start();
        writer.WriteArrayHeader(3 + (expiresAt != 0 ? 2 : 0) + (slidingWindow != 0 ? 2 : 0) + (flags != 0 ? 2 : 0));
        writer.WriteBulkString("CUBBY.SET"u8);
        writer.WriteBulkString(key);
        writer.WriteBulkString(value);
        if (expiresAt != 0)
        {
            writer.WriteBulkString("PXAT"u8);
            WriteNumber(writer, expiresAt);
        }

        if (slidingWindow != 0)
        {
            writer.WriteBulkString("SLIDE"u8);
            WriteNumber(writer, slidingWindow);
        }

        if (flags != 0)
        {
            writer.WriteBulkString("FLAGS"u8);
            WriteNumber(writer, (uint)flags);
        }

        return CommandBuffer.Written;
    }

    private static ReadOnlySpan<byte> KeyCommand(ReadOnlySpan<byte> name, string key)
    {
        var writer = CommandBuffer.Start();
        writer.WriteArrayHeader(2);
        writer.WriteBulkString(name);
        writer.WriteBulkString(key);
        return CommandBuffer.Written;
    }

    private static void WriteNumber(RespWriter writer, long value)
    {
        Span<byte> digits = stackalloc byte[Text.RedisNumber.MaxInt64Length];
        writer.WriteBulkString(digits[..Text.RedisNumber.FormatInt64(value, digits)]);
    }
}
