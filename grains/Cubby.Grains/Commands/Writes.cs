using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Grains.Commands;

/// <summary>What writing commands share: check the key, write (the shard evicts to make room), report out-of-memory.</summary>
internal static class Writes
{
    /// <summary>Checks the key at <paramref name="keyArgument"/> and writes; returns null after writing an error reply.</summary>
    public static SetStatus? Set(CommandContext context, RespRequest command, int keyArgument, ReadOnlySpan<byte> value, in SetRequest request)
    {
        var key = command[keyArgument];
        if (!context.CheckKey(key))
        {
            return null;
        }

        var none = default(NoReader);
        var status = context.ShardAt(keyArgument).Set(key, value, request, ref none);
        if (status == SetStatus.OutOfMemory)
        {
            context.Writer.WriteError(RedisErrors.OutOfMemory);
            return null;
        }

        return status;
    }

    /// <summary>The reply of APPEND and SETRANGE: the new length, or the error the grain reported.</summary>
    public static void ReplyLength(CommandContext context, UpdateStatus status, long length)
    {
        switch (status)
        {
            case UpdateStatus.Ok:
                context.Writer.WriteInteger(length);
                break;
            case UpdateStatus.TooLarge:
                context.Writer.WriteError(ErrorText.ValueTooLarge(context.MaxValueBytes));
                break;
            default:
                context.Writer.WriteError(RedisErrors.OutOfMemory);
                break;
        }
    }
}
