using Cubby.Resp;

namespace Cubby.Grains.Commands;

/// <summary>DEL, UNLINK, EXISTS and TYPE.</summary>
internal static class KeyspaceCommands
{
    public static void Del(CommandContext context, RespRequest request)
    {
        if (!CheckKeys(context, request))
        {
            return;
        }

        var removed = 0;
        for (var i = 1; i < request.Count; i++)
        {
            removed += context.ShardAt(i).Remove(request[i]) ? 1 : 0;
        }

        context.Writer.WriteInteger(removed);
    }

    public static void Exists(CommandContext context, RespRequest request)
    {
        if (!CheckKeys(context, request))
        {
            return;
        }

        var found = 0;
        for (var i = 1; i < request.Count; i++)
        {
            found += context.ShardAt(i).Exists(request[i]) ? 1 : 0;
        }

        context.Writer.WriteInteger(found);
    }

    public static void Type(CommandContext context, RespRequest request)
    {
        var key = request[1];
        if (context.CheckKey(key))
        {
            context.Writer.WriteSimpleString(context.Shard.KindOf(key) is { } kind ? EntryKinds.NameOf(kind) : "none");
        }
    }

    private static bool CheckKeys(CommandContext context, RespRequest request)
    {
        for (var i = 1; i < request.Count; i++)
        {
            if (!context.CheckKey(request[i]))
            {
                return false;
            }
        }

        return true;
    }
}
