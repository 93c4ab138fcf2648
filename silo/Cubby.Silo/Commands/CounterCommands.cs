using Cubby.Grains;
using Cubby.Resp;
using Cubby.Silo.Protocol;
using Cubby.Text;

namespace Cubby.Silo.Commands;

/// <summary>INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT.</summary>
internal static class CounterCommands
{
    public static void Incr(ClientSession session, RespRequest request) => Increment(session, request[1], 1);

    public static void Decr(ClientSession session, RespRequest request) => Increment(session, request[1], -1);

    public static void IncrBy(ClientSession session, RespRequest request)
    {
        if (Arguments.TryInt64(session, request[2], out var delta))
        {
            Increment(session, request[1], delta);
        }
    }

    public static void DecrBy(ClientSession session, RespRequest request)
    {
        if (!Arguments.TryInt64(session, request[2], out var delta))
        {
            return;
        }

        if (delta == long.MinValue)
        {
            session.Writer.WriteError("ERR decrement would overflow");
            return;
        }

        Increment(session, request[1], -delta);
    }

    public static void IncrByFloat(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (!session.CheckKey(key) || !Arguments.TryDouble(session, request[2], out var delta))
        {
            return;
        }

        Span<byte> text = stackalloc byte[RedisNumber.MaxDoubleLength];
        switch (session.Silo.Catalog.GrainFor(key).IncrementByFloat(key, delta, text, out var length))
        {
            case UpdateStatus.Ok:
                session.Writer.WriteBulkString(text[..length]);
                break;
            case UpdateStatus.NotFloat:
                session.Writer.WriteError(ErrorText.NotFloat);
                break;
            case UpdateStatus.NotFinite:
                session.Writer.WriteError(ErrorText.NotFinite);
                break;
            default:
                session.Writer.WriteError(ErrorText.OutOfMemory);
                break;
        }
    }

    private static void Increment(ClientSession session, ReadOnlySpan<byte> key, long delta)
    {
        if (!session.CheckKey(key))
        {
            return;
        }

        switch (session.Silo.Catalog.GrainFor(key).IncrementBy(key, delta, out var result))
        {
            case UpdateStatus.Ok:
                session.Writer.WriteInteger(result);
                break;
            case UpdateStatus.NotInteger:
                session.Writer.WriteError(ErrorText.NotInteger);
                break;
            case UpdateStatus.Overflow:
                session.Writer.WriteError(ErrorText.Overflow);
                break;
            default:
                session.Writer.WriteError(ErrorText.OutOfMemory);
                break;
        }
    }
}
