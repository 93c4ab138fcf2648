using Cubby.Grains;
using Cubby.Grains.Storage;
using Cubby.Resp;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Commands;

/// <summary>Cubby's own commands (see <see cref="CubbyProtocol"/>): reads and writes with flags and sliding expiry.</summary>
internal static class CubbyCommands
{
    public static void Get(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (!session.CheckKey(key))
        {
            return;
        }

        var reply = new CubbyEntryReply(session.Writer);
        StringCommands.Lookup(session, key, ref reply);
    }

    /// <summary>CUBBY.SET key value [PXAT ms] [SLIDE ms] [FLAGS n] [NX|XX]; replies with the <see cref="WriteOutcome"/>.</summary>
    public static void Set(ClientSession session, RespRequest request)
    {
        long expiresAt = 0, sliding = 0, flags = 0;
        var condition = WriteCondition.Always;
        for (var i = 3; i < request.Count; i++)
        {
            var option = request[i];
            var hasValue = i + 1 < request.Count;
            if (Arguments.Is(option, "NX") && condition == WriteCondition.Always)
            {
                condition = WriteCondition.IfAbsent;
            }
            else if (Arguments.Is(option, "XX") && condition == WriteCondition.Always)
            {
                condition = WriteCondition.IfPresent;
            }
            else if (hasValue && Arguments.Is(option, "PXAT") && expiresAt == 0)
            {
                if (!Arguments.TryInt64(session, request[++i], out expiresAt))
                {
                    return;
                }

                if (expiresAt <= session.Silo.NowMilliseconds)
                {
                    session.Writer.WriteError("ERR invalid expire time in 'cubby.set' command: PXAT is not in the future");
                    return;
                }
            }
            else if (hasValue && Arguments.Is(option, "SLIDE") && sliding == 0)
            {
                if (!Arguments.TryInt64(session, request[++i], out sliding))
                {
                    return;
                }

                if (sliding <= 0)
                {
                    session.Writer.WriteError("ERR invalid expire time in 'cubby.set' command: SLIDE must be positive");
                    return;
                }
            }
            else if (hasValue && Arguments.Is(option, "FLAGS"))
            {
                if (!Arguments.TryInt64(session, request[++i], out flags))
                {
                    return;
                }

                if (flags is < 0 or > uint.MaxValue)
                {
                    session.Writer.WriteError("ERR FLAGS must be an unsigned 32-bit integer");
                    return;
                }
            }
            else
            {
                session.Writer.WriteError(ErrorText.Syntax);
                return;
            }
        }

        var status = Writes.Set(session, request[1], request[2], new SetRequest(condition, new ExpirySpec(expiresAt, sliding), (uint)flags));
        if (status is { } written)
        {
            session.Writer.WriteInteger((int)(written switch
            {
                SetStatus.Created => WriteOutcome.Created,
                SetStatus.Updated => WriteOutcome.Updated,
                _ => WriteOutcome.NotStored,
            }));
        }
    }

    public static void Refresh(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (session.CheckKey(key))
        {
            session.Writer.WriteInteger(session.Silo.Catalog.GrainFor(key).Refresh(key) ? 1 : 0);
        }
    }

    /// <summary>
    /// CUBBY.OWNER key: the key's shard and the RESP endpoint of the silo where that shard is active. It runs in the
    /// shard's turn like any keyed command, so wherever it runs is where the shard is.
    /// </summary>
    public static void Owner(ClientSession session, RespRequest request)
    {
        var key = request[1];
        if (session.CheckKey(key))
        {
            session.Writer.WriteArrayHeader(2);
            session.Writer.WriteInteger(session.Silo.Catalog.ShardMap.SlotOf(key));
            session.Writer.WriteBulkString(session.Silo.RespEndpoint);
        }
    }
}
