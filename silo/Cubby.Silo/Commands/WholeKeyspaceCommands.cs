using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Silo.Protocol;
using Cubby.Silo.Routing;
using Cubby.Text;

namespace Cubby.Silo.Commands;

/// <summary>SCAN, KEYS, RANDOMKEY, DBSIZE, FLUSHALL and FLUSHDB: commands on every shard of the cluster.</summary>
internal static class WholeKeyspaceCommands
{
    private const int DefaultScanCount = 10;

    /// <summary>
    /// SCAN's cursor is the next slot to visit. Each call takes whole slots, each in one turn, until it has COUNT keys,
    /// so every key present for the whole iteration is returned exactly once even as others come and go.
    /// </summary>
    public static void Scan(ClientSession session, RespRequest request)
    {
        if (!Arguments.TryCursor(request[1], out var cursor))
        {
            session.Writer.WriteError(RedisErrors.InvalidCursor);
            return;
        }

        byte[]? pattern = null;
        long count = DefaultScanCount;
        string? type = null;
        for (var i = 2; i < request.Count; i++)
        {
            var option = request[i];
            if (i + 1 >= request.Count)
            {
                session.Writer.WriteError(RedisErrors.Syntax);
                return;
            }

            if (AsciiIgnoreCaseComparer.IsKeyword(option, "MATCH"))
            {
                pattern = request[++i].ToArray();
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "COUNT"))
            {
                if (!Arguments.TryInt64(session.Context, request[++i], out count))
                {
                    return;
                }

                if (count < 1)
                {
                    session.Writer.WriteError(RedisErrors.Syntax);
                    return;
                }
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "TYPE"))
            {
                type = Arguments.Utf8(request[++i]);
            }
            else
            {
                session.Writer.WriteError(RedisErrors.Syntax);
                return;
            }
        }

        session.Defer(ClusterKeyspace.ScanAsync(session, cursor, pattern, count, type));
    }

    public static void Keys(ClientSession session, RespRequest request) => session.Defer(ClusterKeyspace.KeysAsync(session, request[1].ToArray()));

    public static void RandomKey(ClientSession session, RespRequest request) => session.Defer(ClusterKeyspace.RandomKeyAsync(session));

    public static void DbSize(ClientSession session, RespRequest request) => session.Defer(ClusterKeyspace.DbSizeAsync(session));

    public static void FlushAll(ClientSession session, RespRequest request)
    {
        if (request.Count > 2 || (request.Count == 2 && !AsciiIgnoreCaseComparer.IsKeyword(request[1], "ASYNC") && !AsciiIgnoreCaseComparer.IsKeyword(request[1], "SYNC")))
        {
            session.Writer.WriteError(RedisErrors.Syntax);
            return;
        }

        session.Defer(ClusterKeyspace.FlushAllAsync(session));
    }
}
