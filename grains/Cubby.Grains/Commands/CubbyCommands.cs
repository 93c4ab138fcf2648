using Cubby.Grains;
using Cubby.Grains.Storage;
using Cubby.Resp;
using Cubby.Text;

namespace Cubby.Grains.Commands;

/// <summary>Cubby's own commands (see <see cref="CubbyProtocol"/>): reads and writes with flags and sliding expiry.</summary>
internal static class CubbyCommands
{
    public static void Get(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (!context.CheckKey(key))
        {
            return;
        }

        var reply = new CubbyEntryReply(context.Writer);
        StringCommands.Lookup(context, request, 1, ref reply);
    }

    /// <summary>CUBBY.SET key value [PXAT ms] [SLIDE ms] [FLAGS n] [NX|XX]; replies with the <see cref="WriteOutcome"/>.</summary>
    public static void Set(CommandContext context, RespRequest request)
    {
        long expiresAt = 0, sliding = 0, flags = 0;
        var condition = WriteCondition.Always;
        for (var i = 3; i < request.Count; i++)
        {
            var option = request[i];
            var hasValue = i + 1 < request.Count;
            if (AsciiIgnoreCaseComparer.IsKeyword(option, "NX") && condition == WriteCondition.Always)
            {
                condition = WriteCondition.IfAbsent;
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "XX") && condition == WriteCondition.Always)
            {
                condition = WriteCondition.IfPresent;
            }
            else if (hasValue && AsciiIgnoreCaseComparer.IsKeyword(option, "PXAT") && expiresAt == 0)
            {
                if (!Arguments.TryInt64(context, request[++i], out expiresAt))
                {
                    return;
                }

                if (expiresAt <= context.NowMilliseconds)
                {
                    context.Writer.WriteError("ERR invalid expire time in 'cubby.set' command: PXAT is not in the future");
                    return;
                }
            }
            else if (hasValue && AsciiIgnoreCaseComparer.IsKeyword(option, "SLIDE") && sliding == 0)
            {
                if (!Arguments.TryInt64(context, request[++i], out sliding))
                {
                    return;
                }

                if (sliding <= 0)
                {
                    context.Writer.WriteError("ERR invalid expire time in 'cubby.set' command: SLIDE must be positive");
                    return;
                }
            }
            else if (hasValue && AsciiIgnoreCaseComparer.IsKeyword(option, "FLAGS"))
            {
                if (!Arguments.TryInt64(context, request[++i], out flags))
                {
                    return;
                }

                if (flags is < 0 or > uint.MaxValue)
                {
                    context.Writer.WriteError("ERR FLAGS must be an unsigned 32-bit integer");
                    return;
                }
            }
            else
            {
                context.Writer.WriteError(RedisErrors.Syntax);
                return;
            }
        }

        var status = Writes.Set(context, request, 1, request[2], new SetRequest(condition, new ExpirySpec(expiresAt, sliding), (uint)flags));
        if (status is { } written)
        {
            context.Writer.WriteInteger((int)(written switch
            {
                SetStatus.Created => WriteOutcome.Created,
                SetStatus.Updated => WriteOutcome.Updated,
                _ => WriteOutcome.NotStored,
            }));
        }
    }

    public static void Refresh(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (context.CheckKey(key))
        {
            context.Writer.WriteInteger(context.Shard.Refresh(key) ? 1 : 0);
        }
    }

    /// <summary>
    /// CUBBY.OWNER key: the key's shard and the RESP endpoint of the silo where that shard is active. It runs in the
    /// shard's turn like any keyed command, so wherever it runs is where the shard is; null for the endpoint when that
    /// silo hosts shards without a RESP front door.
    /// </summary>
    public static void Owner(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (context.CheckKey(key))
        {
            context.Writer.WriteArrayHeader(2);
            context.Writer.WriteInteger(context.Shard.Slot);
            if (context.RespEndpoint is { } endpoint)
            {
                context.Writer.WriteBulkString(endpoint);
            }
            else
            {
                context.Writer.WriteNull();
            }
        }
    }
}
