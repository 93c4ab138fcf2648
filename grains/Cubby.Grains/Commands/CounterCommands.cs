using Cubby.Grains;
using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Grains.Commands;

/// <summary>INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT.</summary>
internal static class CounterCommands
{
    public static void Incr(CommandContext context, RespRequest request) => Increment(context, request[1], 1);

    public static void Decr(CommandContext context, RespRequest request) => Increment(context, request[1], -1);

    public static void IncrBy(CommandContext context, RespRequest request)
    {
        if (Arguments.TryInt64(context, request[2], out var delta))
        {
            Increment(context, request[1], delta);
        }
    }

    public static void DecrBy(CommandContext context, RespRequest request)
    {
        if (!Arguments.TryInt64(context, request[2], out var delta))
        {
            return;
        }

        if (delta == long.MinValue)
        {
            context.Writer.WriteError("ERR decrement would overflow");
            return;
        }

        Increment(context, request[1], -delta);
    }

    public static void IncrByFloat(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key) || !Arguments.TryDouble(context, request[2], out var delta))
        {
            return;
        }

        Span<byte> text = stackalloc byte[RedisNumber.MaxDoubleLength];
        switch (context.Shard.IncrementByFloat(key, delta, text, out var length))
        {
            case UpdateStatus.Ok:
                context.Writer.WriteBulkString(text[..length]);
                break;
            case UpdateStatus.NotFloat:
                context.Writer.WriteError(ErrorText.NotFloat);
                break;
            case UpdateStatus.NotFinite:
                context.Writer.WriteError(ErrorText.NotFinite);
                break;
            default:
                context.Writer.WriteError(RedisErrors.OutOfMemory);
                break;
        }
    }

    private static void Increment(CommandContext context, ReadOnlySpan<byte> key, long delta)
    {
        if (!context.CheckKey(key))
        {
            return;
        }

        switch (context.Shard.IncrementBy(key, delta, out var result))
        {
            case UpdateStatus.Ok:
                context.Writer.WriteInteger(result);
                break;
            case UpdateStatus.NotInteger:
                context.Writer.WriteError(ErrorText.NotInteger);
                break;
            case UpdateStatus.Overflow:
                context.Writer.WriteError(ErrorText.Overflow);
                break;
            default:
                context.Writer.WriteError(RedisErrors.OutOfMemory);
                break;
        }
    }
}
